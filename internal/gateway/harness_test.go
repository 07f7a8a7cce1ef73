package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// logBuffer collects the server's log lines for leak checks.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testServer is a whole sluice server on a temporary data directory, served
// by httptest on a random loopback port, with 127.0.0.1 allowed as an egress
// destination for the tests' upstreams.
type testServer struct {
	t        testing.TB
	app      *gateway.App
	http     *httptest.Server
	admin    string
	logs     *logBuffer
	dataDir  string
	upstream *httptest.Server
}

// testAccounts numbers the accounts testServer.account makes.
var testAccounts atomic.Int64

type serverOption func(*config.Config)

// extra is an option beyond the config: session limits.
type extra struct {
	session gateway.SessionConfig
	mcp     gateway.MCPConfig
}

func withSession(sc gateway.SessionConfig) func(*extra) { return func(e *extra) { e.session = sc } }

func withMCP(mc gateway.MCPConfig) func(*extra) { return func(e *extra) { e.mcp = mc } }

func newServer(t testing.TB, opts ...any) *testServer {
	t.Helper()
	dir := t.TempDir()
	return startServer(t, dir, opts...)
}

func startServer(t testing.TB, dir string, opts ...any) *testServer {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir = dir
	cfg.Egress.AllowPrivate = []string{"127.0.0.1"}
	cfg.Server.ShutdownGrace = 2 * time.Second
	cfg.Metrics.Enabled = true
	var ex extra
	for _, o := range opts {
		switch f := o.(type) {
		case func(*config.Config):
			f(&cfg)
		case serverOption:
			f(&cfg)
		case func(*extra):
			f(&ex)
		default:
			t.Fatalf("unknown server option %T", o)
		}
	}
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{Logger: log, Session: ex.session, MCP: ex.mcp})
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{t: t, app: app, admin: app.AdminKey, logs: logs, dataDir: dir}
	ts.http = httptest.NewServer(app.Server.Handler())
	t.Cleanup(ts.close)
	return ts
}

func (s *testServer) close() {
	if s.http != nil {
		s.http.Close()
		s.http = nil
	}
	if s.app != nil {
		_ = s.app.Close()
		s.app = nil
	}
}

// response is an answer with its body decoded when it is JSON.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (s *testServer) call(method, path, key string, body any) response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, s.http.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return s.do(req)
}

func (s *testServer) do(req *http.Request) response {
	s.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

func (r response) want(t testing.TB, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// get follows a path of keys into the body ("error.type").
func (r response) get(path string) any {
	var v any = r.body
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func (r response) str(path string) string { s, _ := r.get(path).(string); return s }

// account makes an account with permissions (and limits) and returns its id and key.
func (s *testServer) account(perms map[string]any, limits map[string]any) (string, string) {
	s.t.Helper()
	// Account names are unique: each its own, across the servers of a test
	// that restarts on one data directory too.
	body := map[string]any{"name": fmt.Sprintf("test agent %d", testAccounts.Add(1)), "permissions": perms}
	if limits != nil {
		body["limits"] = limits
	}
	r := s.call("POST", "/api/v1/admin/accounts", s.admin, body).want(s.t, http.StatusCreated)
	return r.str("agent_id"), r.str("api_key")
}

// anyAccount may run every operation against any public host and 127.0.0.1.
func (s *testServer) anyAccount(creds ...string) (string, string) {
	if creds == nil {
		creds = []string{}
	}
	return s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": creds}, nil)
}

// jsonl joins workflow lines.
func jsonl(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// upstreamJSON is a loopback API answering body on every path.
func upstreamJSON(t testing.TB, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// waitFor polls until cond holds (or fails the test after timeout).
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
