package capreg_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// dep is a dependency as the codec would normalize it.
func dep(name, ns, id, version, checksum, registry string) *a2s.Dependency {
	pos := a2s.Pos{Line: 3, Col: 5}
	text := func(v string) a2s.Text {
		if v == "" {
			return a2s.Text{}
		}
		return a2s.Text{Value: v, Pos: pos}
	}
	return &a2s.Dependency{Name: name, Pos: pos, Namespace: text(ns), ID: text(id), Version: text(version),
		Checksum: text(checksum), Registry: text(registry)}
}

// aggregate is the importing document, declaring registries name -> URL.
func aggregate(registries map[string]string) *a2s.Document {
	d := &a2s.Document{ID: a2s.Text{Value: "Report"}, Type: a2s.Text{Value: a2s.TypeAggregate}}
	for name, u := range registries {
		d.Registries = append(d.Registries, a2s.Registry{Name: name, URL: a2s.Text{Value: u}})
	}
	return d
}

func TestImporterLocal(t *testing.T) {
	r := newRegistry(t, capreg.Options{})
	for _, v := range []string{"1.0.0", "1.4.2", "2.0.0"} {
		publish(t, r, "core/weather", doc(t, "Weather", v))
	}
	publish(t, r, "", doc(t, "Hello", "1.0.0"))
	im := r.Importer(aggregate(nil))

	d, err := im.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", "", ""))
	must(t, err)
	if d.ID.Value != "Weather" || d.Version.Value != "1.4.2" {
		t.Fatalf("imported %s@%s, want Weather@1.4.2", d.ID.Value, d.Version.Value)
	}
	again, err := im.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", "", ""))
	must(t, err)
	if again != d {
		t.Error("a second import parsed the document again instead of using the cache")
	}
	// No namespace is the default one; no version the latest.
	d, err = im.Import(ctx, dep("hello", "", "Hello", "", "", ""))
	must(t, err)
	if d.ID.Value != "Hello" {
		t.Fatalf("imported %s", d.ID.Value)
	}
	// A pinned checksum, as sha256:<hex> or bare hex, in either case.
	sum := checksumOf(t, doc(t, "Weather", "1.4.2"))
	for _, pin := range []string{sum, strings.TrimPrefix(sum, "sha256:"), strings.ToUpper(strings.TrimPrefix(sum, "sha256:"))} {
		if _, err := im.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", pin, "")); err != nil {
			t.Errorf("pin %s: %v", pin, err)
		}
	}
	// A pin that the resolved version does not have: refused, saying both.
	old := checksumOf(t, doc(t, "Weather", "1.0.0"))
	_, err = im.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", old, ""))
	fe := wantKind(t, err, fault.Invalid, "a pinned checksum of another version")
	for _, s := range []string{"dependency weather", "pins checksum " + old, "core/weather/Weather@1.4.2", sum} {
		if !strings.Contains(fe.Message, s) {
			t.Errorf("the mismatch does not say %q: %s", s, fe.Message)
		}
	}
	if fe.Path != "dependencies.weather.checksum" || fe.Line != 3 {
		t.Errorf("the mismatch does not point at the checksum: %q line %d", fe.Path, fe.Line)
	}
	_, err = im.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", "sha256:xyz", ""))
	wantKind(t, err, fault.Invalid, "a pin that is no checksum")

	_, err = im.Import(ctx, dep("weather", "core/weather", "Weather", "^3", "", ""))
	fe = wantKind(t, err, fault.NotFound, "a constraint nothing meets")
	if !strings.HasPrefix(fe.Message, "dependency weather: ") || !strings.Contains(fe.Message, "1.0.0, 1.4.2, 2.0.0") {
		t.Errorf("message: %s", fe.Message)
	}
	_, err = im.Import(ctx, dep("radar", "core/weather", "Radar", "", "", ""))
	wantKind(t, err, fault.NotFound, "a capability never published")
	_, err = im.Import(ctx, dep("x", "core", "", "", "", ""))
	wantKind(t, err, fault.Invalid, "a dependency without id")
	_, err = im.Import(ctx, dep("x", "Core", "Weather", "", "", ""))
	wantKind(t, err, fault.Invalid, "a dependency with a bad namespace")
	_, err = im.Import(ctx, dep("x", "core/weather", "Weather", "", "", "registries.nowhere"))
	fe = wantKind(t, err, fault.Invalid, "an undeclared registry")
	if !strings.Contains(fe.Message, "not declared") {
		t.Errorf("message: %s", fe.Message)
	}
	_, err = im.Import(ctx, nil)
	wantKind(t, err, fault.Invalid, "no dependency")
}

// remoteRegistry serves a registry's reads as a sluice server does: GET
// /api/v1/a2s/registry/{NS/ID...}?version=C answers the Entry JSON, errors
// the error object. tamper may change the entry before it is sent.
type remoteRegistry struct {
	reg      *capreg.Registry
	mu       sync.Mutex
	tamper   func(*capreg.Entry)
	raw      func(w http.ResponseWriter) bool // answers instead when it returns true
	requests atomic.Int32
	authSeen atomic.Bool
}

// set replaces the tamper and raw hooks; a handler still running keeps the
// ones it read.
func (rr *remoteRegistry) set(tamper func(*capreg.Entry), raw func(w http.ResponseWriter) bool) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.tamper, rr.raw = tamper, raw
}

func (rr *remoteRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rr.requests.Add(1)
	if req.Header.Get("Authorization") != "" {
		rr.authSeen.Store(true)
	}
	rr.mu.Lock()
	tamper, raw := rr.tamper, rr.raw
	rr.mu.Unlock()
	if raw != nil && raw(w) {
		return
	}
	rest, ok := strings.CutPrefix(req.URL.Path, capreg.RegistryPath)
	if req.Method != http.MethodGet || !ok {
		http.NotFound(w, req)
		return
	}
	fail := func(err error) {
		fe := fault.From(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(fe.Kind.HTTPStatus())
		json.NewEncoder(w).Encode(map[string]any{"error": fe.Object()})
	}
	ns, id, err := capreg.SplitPath(rest)
	if err != nil {
		fail(err)
		return
	}
	e, err := rr.reg.Get(req.Context(), ns, id, req.URL.Query().Get("version"))
	if err != nil {
		fail(err)
		return
	}
	if tamper != nil {
		tamper(&e)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(e)
}

func startRemote(t *testing.T) (*remoteRegistry, *httptest.Server) {
	t.Helper()
	rr := &remoteRegistry{reg: newRegistry(t, capreg.Options{})}
	srv := httptest.NewServer(rr)
	t.Cleanup(srv.Close)
	for _, v := range []string{"1.0.0", "1.4.2", "2.0.0"} {
		publish(t, rr.reg, "core/weather", doc(t, "Weather", v))
	}
	return rr, srv
}

func TestImporterRemote(t *testing.T) {
	rr, srv := startRemote(t)
	local := newRegistry(t, capreg.Options{Client: srv.Client()})
	im := local.Importer(aggregate(map[string]string{"custom": srv.URL + "/", "other": "https://registry.example.com"}))

	for _, ref := range []string{"registries.custom", "custom"} {
		d, err := im.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", "", ref))
		must(t, err)
		if d.ID.Value != "Weather" || d.Version.Value != "1.4.2" {
			t.Fatalf("imported %s@%s from the remote, want Weather@1.4.2", d.ID.Value, d.Version.Value)
		}
	}
	if rr.authSeen.Load() {
		t.Error("a key was sent to a remote registry; reads are public")
	}
	// A pin of the remote document's checksum holds; another refuses.
	sum := checksumOf(t, doc(t, "Weather", "2.0.0"))
	d, err := im.Import(ctx, dep("weather", "core/weather", "Weather", "", strings.TrimPrefix(sum, "sha256:"), "custom"))
	must(t, err)
	if d.Version.Value != "2.0.0" {
		t.Fatalf("latest from the remote: %s", d.Version.Value)
	}
	_, err = im.Import(ctx, dep("weather", "core/weather", "Weather", "~1.0", sum, "custom"))
	wantKind(t, err, fault.Invalid, "a remote document that is not the pinned one")
	// Not in the remote registry: NotFound, with the remote's words.
	_, err = im.Import(ctx, dep("weather", "core/weather", "Weather", "^5", "", "custom"))
	fe := wantKind(t, err, fault.NotFound, "a constraint the remote cannot meet")
	if !strings.Contains(fe.Message, "registry custom") || !strings.Contains(fe.Message, "1.0.0, 1.4.2, 2.0.0") {
		t.Errorf("message: %s", fe.Message)
	}
	// Without an egress client, remote registries are refused.
	noClient := newRegistry(t, capreg.Options{}).Importer(aggregate(map[string]string{"custom": srv.URL}))
	before := rr.requests.Load()
	_, err = noClient.Import(ctx, dep("weather", "core/weather", "Weather", "^1.0.0", "", "custom"))
	wantKind(t, err, fault.PermissionDenied, "a remote registry without a client")
	if rr.requests.Load() != before {
		t.Error("the remote was asked although the registry has no client")
	}
}

func TestImporterRemoteRefusals(t *testing.T) {
	rr, srv := startRemote(t)
	mk := func(registryURL string, o capreg.Options) func(*a2s.Dependency) error {
		o.Client = srv.Client()
		im := newRegistry(t, o).Importer(aggregate(map[string]string{"custom": registryURL}))
		return func(d *a2s.Dependency) error { _, err := im.Import(ctx, d); return err }
	}
	weather := dep("weather", "core/weather", "Weather", "^1.0.0", "", "custom")
	imp := mk(srv.URL, capreg.Options{})

	// The remote changed the document but kept its checksum: refused.
	rr.set(func(e *capreg.Entry) {
		e.Document = bytes.Replace(e.Document, []byte("Echoes Weather"), []byte("Exfiltrates Weather"), 1)
	}, nil)
	fe := wantKind(t, imp(weather), fault.Upstream, "a tampered remote document")
	if !strings.Contains(fe.Message, "checksum") || !strings.Contains(fe.Message, "registry custom") {
		t.Errorf("message: %s", fe.Message)
	}
	// Re-sealed by the remote (the document verifies, a new checksum): only a
	// pin catches it, and does.
	rr.set(func(e *capreg.Entry) {
		text := string(e.Document[:bytes.Index(e.Document, []byte("checksum:"))])
		e.Document = sealed(t, strings.Replace(text, "Echoes Weather", "Exfiltrates Weather", 1))
		e.Checksum = checksumOf(t, e.Document)
	}, nil)
	if err := imp(weather); err != nil {
		t.Fatalf("a re-sealed document without a pin: %v", err)
	}
	pinned := dep("weather", "core/weather", "Weather", "^1.0.0", checksumOf(t, doc(t, "Weather", "1.4.2")), "custom")
	wantKind(t, imp(pinned), fault.Invalid, "a re-sealed document against a pin")
	// The entry says another checksum than the document's.
	rr.set(func(e *capreg.Entry) { e.Checksum = checksumOf(t, doc(t, "Weather", "1.0.0")) }, nil)
	wantKind(t, imp(weather), fault.Upstream, "an entry whose checksum is not its document's")
	// Another capability, or a version outside the constraint.
	rr.set(func(e *capreg.Entry) { e.ID = "Radar" }, nil)
	wantKind(t, imp(weather), fault.Upstream, "an answer for another capability")
	rr.set(func(e *capreg.Entry) {
		other, _ := rr.reg.Get(ctx, "core/weather", "Weather", "2.0.0")
		*e = other
	}, nil)
	wantKind(t, imp(weather), fault.Upstream, "an answer outside the constraint")
	rr.set(func(e *capreg.Entry) { e.Version = "1.4.3" }, nil)
	wantKind(t, imp(weather), fault.Upstream, "an entry that is not its document's version")
	rr.set(nil, nil)

	// Answers that are not entries, too large, errors without a body.
	for _, tc := range []struct {
		name string
		raw  func(w http.ResponseWriter)
		kind fault.Kind
	}{
		{"not JSON", func(w http.ResponseWriter) { w.Write([]byte("<html>hello</html>")) }, fault.Upstream},
		{"no document", func(w http.ResponseWriter) {
			w.Write([]byte(`{"namespace":"core/weather","id":"Weather","version":"1.4.2","checksum":"sha256:` + strings.Repeat("0", 64) + `","format":"yaml"}`))
		}, fault.Upstream},
		{"too large", func(w http.ResponseWriter) { w.Write(bytes.Repeat([]byte(" "), 7<<20)) }, fault.Upstream},
		{"server error", func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) }, fault.Upstream},
		{"not found", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) }, fault.NotFound},
		{"key required", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"type":"PermissionError","message":"an API key is required\nsecond line"}}`))
		}, fault.Upstream},
	} {
		rr.set(nil, func(w http.ResponseWriter) bool { tc.raw(w); return true })
		fe := wantKind(t, imp(weather), tc.kind, tc.name)
		if tc.name == "key required" && (!strings.Contains(fe.Message, "an API key is required second line") ||
			len(fe.Suggestions) == 0 || !strings.Contains(fe.Suggestions[0], "public_registry")) {
			t.Errorf("a remote that wants a key: %s %v", fe.Message, fe.Suggestions)
		}
	}
	rr.set(nil, nil)

	// A remote that does not answer in time.
	release := make(chan struct{})
	defer close(release)
	rr.set(nil, func(w http.ResponseWriter) bool { <-release; return true })
	slow := mk(srv.URL, capreg.Options{RemoteTimeout: 50 * time.Millisecond})
	wantKind(t, slow(weather), fault.Timeout, "a remote that does not answer")
	rr.set(nil, nil)

	// Registry URLs that are refused before any request.
	for _, u := range []string{"ftp://registry.example.com", "https://user:pw@registry.example.com", "http://", "https://r.example.com/?q=1", "::"} {
		err := mk(u, capreg.Options{})(weather)
		fe := wantKind(t, err, fault.Invalid, "registry URL "+u)
		if strings.Contains(fe.Message, "pw") {
			t.Errorf("the URL's password is in the message: %s", fe.Message)
		}
	}
}
