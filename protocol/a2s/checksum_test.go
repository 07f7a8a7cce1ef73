package a2s_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// Golden checksums. The spec's example in YAML and its JSON conversion (made
// by another YAML reader, PyYAML) hash the same; the small documents were
// checked against Python's json.dumps(sort_keys=True) + SHA-256, which is
// RFC 8785 for documents of ASCII keys and integer numbers.
var goldenChecksums = map[string]string{
	"testdata/weather.yaml":        "sha256:0bdb47a4f9f29e229bbd9addc2ab4e2904b34a603bdf77e058e84b73b28869c3",
	"testdata/weather.json":        "sha256:0bdb47a4f9f29e229bbd9addc2ab4e2904b34a603bdf77e058e84b73b28869c3",
	"testdata/model/dialects.yaml": "sha256:f5ab0607260c5d2d183a06e0d78ead321fcf8d822bae028bd95ebe1fddfc3613",
	"testdata/lint/A2S001.ok.yaml": "sha256:a40160a0f80d93f81e2c55aba02bf92a65596c60d936e4202377abee67807adc",
	"testdata/lint/A2S002.ok.yaml": "sha256:f0e7ab88088eb4674a685e2b503ace70553ba6ec8ce574d97b80e81d07272867",
	"testdata/lint/A2S010.ok.yaml": "sha256:a40160a0f80d93f81e2c55aba02bf92a65596c60d936e4202377abee67807adc",
	"testdata/lint/A2S011.ok.yaml": "sha256:0ca5826874bda2c87f2f9f1775b55f8a6b3999db94442d70166b9a9d92832958",
	"testdata/lint/A2S012.ok.yaml": "sha256:5426bca1e22d3c1f6602a0adb4118e54206c3469ccf0e7a7078e698feafb47a6",
	"testdata/lint/A2S013.ok.yaml": "sha256:a40160a0f80d93f81e2c55aba02bf92a65596c60d936e4202377abee67807adc",
	"testdata/lint/A2S014.ok.yaml": "sha256:a40160a0f80d93f81e2c55aba02bf92a65596c60d936e4202377abee67807adc",
	"testdata/lint/A2S015.ok.yaml": "sha256:02d072da46f975c602a2fec3c950b3e7856d9d52c6e2261c7099f849125b9205",
	"testdata/lint/A2S016.ok.yaml": "sha256:a40160a0f80d93f81e2c55aba02bf92a65596c60d936e4202377abee67807adc",
	"testdata/lint/A2S020.ok.yaml": "sha256:a40160a0f80d93f81e2c55aba02bf92a65596c60d936e4202377abee67807adc",
	"testdata/lint/A2S021.ok.yaml": "sha256:0f6756b4372bc59cfefebac432f7f8604677b82665cb04e6ad4c7f9a94b86937",
	"testdata/lint/A2S022.ok.yaml": "sha256:52f705260fa31ef4f53601f22b353c234c9fa4b191eb8e1f10cf3566f0336c31",
}

func TestChecksumGolden(t *testing.T) {
	for file, want := range goldenChecksums {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := a2s.ParseTree(data, a2s.Options{File: file, Format: a2s.FormatOf(file)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := a2s.ComputeChecksum(tree)
		if err != nil || got != want {
			t.Errorf("%s: got %s %v, want %s", file, got, err, want)
		}
	}
}

func weatherTree(t *testing.T) *a2s.Node {
	t.Helper()
	data, err := os.ReadFile("testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := a2s.ParseTree(data, a2s.Options{Format: a2s.FormatYAML})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestVerifyChecksum(t *testing.T) {
	tree := weatherTree(t)
	sum := goldenChecksums["testdata/weather.yaml"]
	hexSum := strings.TrimPrefix(sum, "sha256:")
	for _, ok := range []string{sum, hexSum, strings.ToUpper(hexSum), "SHA256:" + hexSum, " " + sum + "\n"} {
		if err := a2s.VerifyChecksum(tree, ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	mismatch := "sha256:" + strings.Repeat("0", 64)
	if err := a2s.VerifyChecksum(tree, mismatch); !errors.Is(err, a2s.ErrChecksumMismatch) || !strings.Contains(err.Error(), sum) {
		t.Errorf("mismatch: %v", err)
	}
	for _, bad := range []string{"", "<calculated_checksum>", "sha256:abc", "md5:" + hexSum, hexSum + "00", strings.Repeat("g", 64)} {
		if err := a2s.VerifyChecksum(tree, bad); !errors.Is(err, a2s.ErrChecksumFormat) {
			t.Errorf("%q: want a format error, got %v", bad, err)
		}
	}
}

// TestChecksumIgnoresLayout: key order, whitespace, comments, quoting and
// number spelling do not change the checksum; a changed value does.
func TestChecksumIgnoresLayout(t *testing.T) {
	sum := func(src string, f a2s.Format) string {
		tree, err := a2s.ParseTree([]byte(src), a2s.Options{Format: f})
		if err != nil {
			t.Fatal(err)
		}
		s, err := a2s.ComputeChecksum(tree)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := sum("a2s: 1.0.0\nid: X\nn: 10\nchecksum: whatever\n", a2s.FormatYAML)
	same := []string{
		"id: 'X'   # a comment\nn: 1.0e+1\na2s: \"1.0.0\"\n",
		"{\"n\": 10.0, \"a2s\": \"1.0.0\", \"id\": \"X\"}",
		"{\"n\":1e1,\"id\":\"X\",\"a2s\":\"1.0.0\",\"checksum\":\"sha256:00\"}",
	}
	for _, s := range same {
		if got := sum(s, a2s.FormatAuto); got != base {
			t.Errorf("%q: %s != %s", s, got, base)
		}
	}
	if sum("a2s: 1.0.0\nid: X\nn: 11\n", a2s.FormatYAML) == base {
		t.Error("a changed value must change the checksum")
	}
	// Only the top-level checksum is left out.
	if sum("a2s: 1.0.0\nid: X\nn: 10\nx: {checksum: 1}\n", a2s.FormatYAML) == base {
		t.Error("a nested checksum key is content")
	}
}

func TestDocumentVerify(t *testing.T) {
	data, _ := os.ReadFile("testdata/weather.json")
	d, err := a2s.Parse(data, a2s.Options{Format: a2s.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Verify(); err != nil {
		t.Fatal(err)
	}
	d2, _ := a2s.Parse([]byte("a2s: 1.0.0\n"), a2s.Options{})
	if err := d2.Verify(); !errors.Is(err, a2s.ErrNoChecksum) {
		t.Fatalf("no checksum: %v", err)
	}
}
