package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// site is a whole sluice server with its console, on SQLite in a
// temporary directory, and an admin key.
type site struct {
	t     testing.TB
	app   *gateway.App
	http  *httptest.Server
	admin string
}

func newSite(t testing.TB, opts ...func(*config.Config)) *site {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.Egress.AllowPrivate = []string{"127.0.0.1"}
	cfg.Server.ShutdownGrace = 2 * time.Second
	for _, o := range opts {
		o(&cfg)
	}
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &site{t: t, app: app, admin: app.AdminKey}
	s.http = httptest.NewServer(app.Server.Handler())
	t.Cleanup(func() { s.http.Close(); _ = app.Close() })
	return s
}

// api calls the REST API with key and decodes a JSON answer.
func (s *site) api(method, path, key string, body any, want int) map[string]any {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.http.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		s.t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return out
}

var accounts atomic.Int64

// account makes an account that may run every operation on any host, and
// answer capabilities; it returns its id and key.
func (s *site) account() (string, string) {
	s.t.Helper()
	r := s.api("POST", "/api/v1/admin/accounts", s.admin, map[string]any{
		"name": fmt.Sprintf("console test %d", accounts.Add(1)),
		"permissions": map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": []string{"*"},
			"capability_level": "basic"}}, http.StatusCreated)
	return r["agent_id"].(string), r["api_key"].(string)
}

// execute runs an A2E workflow of JSONL lines; async returns at once.
func (s *site) execute(key string, async bool, lines ...string) string {
	s.t.Helper()
	path, want := "/api/v1/workflows/execute", http.StatusOK
	if async {
		path, want = path+"?async=true", http.StatusAccepted
	}
	r := s.api("POST", path, key, map[string]any{"workflow": strings.Join(lines, "\n") + "\n"}, want)
	return r["execution_id"].(string)
}

var execIDs atomic.Int64

func begin(ops ...string) string {
	b, _ := json.Marshal(ops)
	return fmt.Sprintf(`{"type":"beginExecution","executionId":"console-%d-%d","operationOrder":%s}`, time.Now().UnixNano(), execIDs.Add(1), b)
}

func waitOp(id string, ms int) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":%q,"operation":{"Wait":{"duration":%d}}}`, id, ms)
}

func fetchOp(id, url string) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":%q,"operation":{"ApiCall":{"method":"GET","url":%q,"outputPath":"/workflow/%s"}}}`, id, url, id)
}

// failing is a loopback API that answers 500 on every path.
func failing(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "the upstream is down", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// publishApprove publishes testdata/a2s/approve.yaml (a capability that
// waits for a verdict) as finance/Approve.
func (s *site) publishApprove() {
	s.t.Helper()
	_, self, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(filepath.Join(filepath.Dir(self), "../../testdata/a2s/approve.yaml"))
	if err != nil {
		s.t.Fatal(err)
	}
	tree, err := a2s.ParseTree(src, a2s.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		s.t.Fatal(err)
	}
	s.api("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance",
		"document": "checksum: \"" + sum + "\"\n" + string(src), "file": "approve.yaml"}, http.StatusCreated)
}

// waitingRun starts finance/Approve for key: a run waiting for a verdict.
func (s *site) waitingRun(key string) string {
	s.t.Helper()
	r := s.api("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 7}}, http.StatusOK)
	return r["run_id"].(string)
}

func (s *site) status(key, runID string) string {
	r := s.api("GET", "/api/v1/runs/"+runID, key, nil, http.StatusOK)
	st, _ := r["status"].(string)
	return st
}

func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	s      *site
	client *http.Client
}

func (s *site) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{s: s, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// page is one answer of the console.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) get(path string) page {
	b.s.t.Helper()
	resp, err := b.client.Get(b.s.http.URL + path)
	if err != nil {
		b.s.t.Fatal(err)
	}
	return read(b.s.t, resp)
}

func (b *browser) post(path string, form url.Values) page {
	b.s.t.Helper()
	resp, err := b.client.PostForm(b.s.http.URL+path, form)
	if err != nil {
		b.s.t.Fatal(err)
	}
	return read(b.s.t, resp)
}

func read(t testing.TB, resp *http.Response) page {
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(raw)}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the token of the page's forms.
func (p page) csrf(t testing.TB) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF token on the page: %s", p.body)
	}
	return m[1]
}

func (p page) want(t testing.TB, status int) page {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d: %s", p.status, status, p.body)
	}
	return p
}

// signIn signs b in with key through the sign-in form.
func (b *browser) signIn(key string) {
	b.s.t.Helper()
	form := b.get("/console/signin").want(b.s.t, http.StatusOK)
	p := b.post("/console/signin", url.Values{"csrf": {form.csrf(b.s.t)}, "key": {key}, "next": {"/console/runs"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/runs" {
		b.s.t.Fatalf("sign-in: %d %v: %s", p.status, p.header, p.body)
	}
}
