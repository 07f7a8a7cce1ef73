package op_test

import (
	"fmt"
	"net/http"
	"path"
	"strings"
	"testing"
)

// A path value of "." or ".." stays a value: it was sent as a dot segment,
// which the upstream (or any proxy on the way) removes with the segment
// before it, so GET /api/items/{id} with id ".." reached /api/.
func TestApiCallDotSegmentValuesStayInTheDeclaredPath(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	for _, c := range []struct {
		tpl, v, want string
	}{
		{"/api/items/{/workflow/v}", "..", "/api/items/%2E%2E"},
		{"/api/items/{/workflow/v}", ".", "/api/items/%2E"},
		{"/api/items/{/workflow/v}/detail", "..", "/api/items/%2E%2E/detail"},
		{"/api/items/.{/workflow/v}", ".", "/api/items/%2E%2E"}, // a literal dot and a value make the segment
		{"/api/items/{/workflow/v}", "...", "/api/items/%2E%2E%2E"},
		{"/api/items/{/workflow/v}", "..x", "/api/items/..x"},
		{"/api/items/{/workflow/v}?q={/workflow/v}", "..", "/api/items/%2E%2E"},
	} {
		data := model(t, map[string]any{"v": c.v})
		cfg := fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r","cache":false}`, up.URL+c.tpl)
		if _, err := e.run(t, cfg, data); err != nil {
			t.Fatal(err)
		}
		r, _ := up.request()
		raw, _, _ := strings.Cut(r.RequestURI, "?")
		if raw != c.want {
			t.Errorf("%s with %q: the upstream got %q, want %q", c.tpl, c.v, raw, c.want)
		}
		// Normalised as a server would (dot segments removed), it is still
		// under the declared prefix.
		if clean := path.Clean(raw); !strings.HasPrefix(clean, "/api/items/") {
			t.Errorf("%s with %q: %q normalises to %q, outside /api/items/", c.tpl, c.v, raw, clean)
		}
	}
}

// The same through Go's own router: the value reaches the declared route.
func TestApiCallDotSegmentValueReachesTheDeclaredRoute(t *testing.T) {
	mux := http.NewServeMux()
	got := make(chan string, 1)
	mux.HandleFunc("GET /api/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		got <- r.PathValue("id")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { got <- "elsewhere: " + r.URL.Path; http.NotFound(w, r) })
	up := newUpstream(t, mux.ServeHTTP)
	e := newEnv(t)
	cfg := fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r","cache":false}`, up.URL+"/api/items/{/workflow/v}")
	if _, err := e.run(t, cfg, model(t, map[string]any{"v": ".."})); err != nil {
		t.Fatal(err)
	}
	if id := <-got; id != ".." {
		t.Fatalf("the request reached %q, want /api/items/{id} with id ..", id)
	}
}
