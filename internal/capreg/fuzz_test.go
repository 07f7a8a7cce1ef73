package capreg_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/capreg"
)

// FuzzDecodeEntry feeds arbitrary remote answers to the decoder: it never
// panics, and what it accepts survives a round trip through its JSON.
func FuzzDecodeEntry(f *testing.F) {
	f.Add([]byte(`{"namespace":"core/weather","id":"Weather","version":"1.4.2","checksum":"sha256:` + strings.Repeat("ab", 32) +
		`","type":"atomic","format":"yaml","document":"a2s: 1.0.0\nid: Weather\n","published_at":"2026-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"namespace":"x","id":"Y","version":"1.0.0-rc.1","checksum":"` + strings.Repeat("AB", 32) + `","format":"json","document":"{}"}`))
	f.Add([]byte(`{"document":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"namespace":"a//b"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := capreg.DecodeEntry(body)
		if err != nil {
			return
		}
		if len(e.Document) == 0 || !strings.HasPrefix(e.Checksum, "sha256:") {
			t.Fatalf("accepted an entry without document or normalized checksum: %+v", e)
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		back, err := capreg.DecodeEntry(again)
		if err != nil {
			t.Fatalf("a decoded entry does not decode again: %v\n%s", err, again)
		}
		if !bytes.Equal(back.Document, e.Document) || back.Ref() != e.Ref() || back.Checksum != e.Checksum || !back.PublishedAt.Equal(e.PublishedAt) {
			t.Fatalf("round trip changed the entry:\n%+v\n%+v", e, back)
		}
	})
}

// FuzzSplitPath: any path splits into a checked namespace and id, or is
// refused; never a panic.
func FuzzSplitPath(f *testing.F) {
	for _, s := range []string{"core/weather/Weather", "Hello", "", "/", "a//b", "a/b/", "ü/x", "a/.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		ns, id, err := capreg.SplitPath(p)
		if err != nil {
			return
		}
		if ns == "" || id == "" || strings.Contains(id, "/") {
			t.Fatalf("SplitPath(%q) = %q, %q", p, ns, id)
		}
		ns2, id2, err := capreg.SplitPath(ns + "/" + id)
		if err != nil || ns2 != ns || id2 != id {
			t.Fatalf("NS/ID of %q does not split back: %q %q %v", p, ns2, id2, err)
		}
	})
}
