package op

import (
	"path"
	"strings"
	"testing"
)

// urlFuzzTemplates are the shapes a value takes in a path: a whole segment,
// two, part of one (after a literal, or a literal dot), two values in one
// segment, and before a query.
var urlFuzzTemplates = []string{
	"http://127.0.0.1/api/v1/{/workflow/a}",
	"http://127.0.0.1/api/v1/{/workflow/a}/{/workflow/b}",
	"http://127.0.0.1/api/v1/x{/workflow/a}/tail",
	"http://127.0.0.1/api/v1/.{/workflow/a}",
	"http://127.0.0.1/api/v1/{/workflow/a}{/workflow/b}/end",
	"http://127.0.0.1/api/v1/{/workflow/a}?q={/workflow/b}#{/workflow/a}",
}

// FuzzURLTemplateRender renders values of dots, slashes and percents into
// URL templates. However the path is normalised afterwards (dot segments
// removed, RFC 3986 §5.2.4), it stays under the template's fixed prefix,
// and the values never add a segment: the path has as many as the template.
func FuzzURLTemplateRender(f *testing.F) {
	for _, a := range []string{".", "..", "...", "../..", "/", "%2e%2e", "%2F", "..%2F", ".%2E", "a/../..", "", "%", "?x", "#"} {
		for i := range urlFuzzTemplates {
			f.Add(uint8(i), a, "..")
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, a, b string) {
		src := urlFuzzTemplates[int(which)%len(urlFuzzTemplates)]
		ut, err := parseURLTemplate(src, "u")
		if err != nil {
			t.Fatal(err)
		}
		u, err := ut.render(mapData{"/workflow/a": a, "/workflow/b": b})
		if err != nil {
			return // refused: nothing is sent
		}
		if u.Host != "127.0.0.1" {
			t.Fatalf("%s with %q, %q: host %q", src, a, b, u.Host)
		}
		raw := u.EscapedPath()
		if clean := path.Clean(raw); !strings.HasPrefix(clean+"/", "/api/v1/") {
			t.Fatalf("%s with %q, %q: path %q normalises to %q, outside /api/v1/", src, a, b, raw, clean)
		}
		tplPath, _, _ := strings.Cut(strings.TrimPrefix(src, "http://127.0.0.1"), "?")
		tplPath = strings.NewReplacer("{/workflow/a}", "a", "{/workflow/b}", "b").Replace(tplPath)
		if got, want := strings.Count(raw, "/"), strings.Count(tplPath, "/"); got != want {
			t.Fatalf("%s with %q, %q: path %q has %d segments, the template %d", src, a, b, raw, got, want)
		}
	})
}
