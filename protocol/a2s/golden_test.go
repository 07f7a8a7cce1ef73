package a2s_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// lintInputs are the documents (and document sets, folders NAME.set) of
// testdata/lint; each has its expected output in NAME.golden.txt.
func lintInputs(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("testdata", "lint", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range all {
		if !strings.HasSuffix(p, ".golden.txt") {
			out = append(out, filepath.ToSlash(p))
		}
	}
	sort.Strings(out)
	return out
}

// lintPath lints a file, or every file of a NAME.set folder as one set.
func lintPath(t testing.TB, path string) []a2s.Diagnostic {
	t.Helper()
	if !strings.HasSuffix(path, ".set") {
		return lintFile(t, path)
	}
	files, _ := filepath.Glob(filepath.Join(path, "*"))
	sort.Strings(files)
	var docs []*a2s.Document
	var diags []a2s.Diagnostic
	for _, f := range files {
		f = filepath.ToSlash(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := a2s.Parse(data, a2s.Options{File: f, Format: a2s.FormatOf(f)})
		if err != nil {
			diags = append(diags, err.(*a2s.Error).Diagnostic())
			continue
		}
		docs = append(docs, d)
	}
	return append(diags, a2s.LintSet(docs)...)
}

func lintFile(t testing.TB, path string) []a2s.Diagnostic {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, diags := a2s.LintBytes(data, a2s.Options{File: path, Format: a2s.FormatOf(path)})
	return diags
}

func formatDiagnostics(ds []a2s.Diagnostic) []byte {
	var b bytes.Buffer
	if len(ds) == 0 {
		b.WriteString("(no problems)\n")
	}
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestLintGolden(t *testing.T) {
	inputs := lintInputs(t)
	if len(inputs) == 0 {
		t.Fatal("testdata/lint has no inputs")
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			compareGolden(t, in+".golden.txt", formatDiagnostics(lintPath(t, in)))
		})
	}
}

func TestGoldenFilesHaveInputs(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "*", "*.golden.*"))
	for _, out := range outs {
		in := out[:strings.LastIndex(out, ".golden.")]
		if _, err := os.Stat(in); err != nil {
			if _, err2 := os.Stat(filepath.Join("testdata", filepath.Base(in))); err2 != nil {
				t.Errorf("%s has no input", out)
			}
		}
	}
}

// modelInputs: the spec's example in both syntaxes, and documents that show
// the dialects and every kind of task and step.
func modelInputs(t *testing.T) []string {
	more, _ := filepath.Glob(filepath.Join("testdata", "model", "*.yaml"))
	moreJSON, _ := filepath.Glob(filepath.Join("testdata", "model", "*.json"))
	var ins []string
	for _, p := range append(append([]string{"testdata/weather.yaml", "testdata/weather.json"}, more...), moreJSON...) {
		if !strings.Contains(p, ".golden.") {
			ins = append(ins, filepath.ToSlash(p))
		}
	}
	return ins
}

func TestModelGolden(t *testing.T) {
	for _, in := range modelInputs(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			d, diags := a2s.LintBytes(data, a2s.Options{File: in, Format: a2s.FormatOf(in)})
			if d == nil {
				t.Fatalf("%s does not parse: %v", in, diags)
			}
			out := map[string]any{"document": d, "diagnostics": diags}
			compareGolden(t, filepath.Join("testdata", "model", filepath.Base(in)+".golden.json"), marshal(t, out))
		})
	}
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test ./protocol/a2s -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run with -update and review the diff.\ngot:\n%s", name, got)
	}
}
