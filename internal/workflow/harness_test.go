package workflow_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/internal/workflow"
)

// syncBuffer is a log sink that tests read after concurrent writers are done.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is a Runner wired like `sluice run`, against loopback upstreams that
// the egress policy allows, with a fake clock so retries do not sleep.
type harness struct {
	runner *workflow.Runner
	logs   *syncBuffer
	clock  *clock.Fake
}

func newHarness(t testing.TB, upstream *httptest.Server, secrets map[string]op.Secret) *harness {
	t.Helper()
	return newHarnessAt(t, upstream, secrets, slog.LevelDebug)
}

// newHarnessAt logs at level; benchmarks log nothing below errors, as a server would.
// Options may change the Runner's config (benchmarks turn the plan cache off).
func newHarnessAt(t testing.TB, upstream *httptest.Server, secrets map[string]op.Secret, level slog.Level, options ...func(*workflow.Config)) *harness {
	t.Helper()
	u, _ := url.Parse(upstream.URL)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: level}))
	fake := clock.NewFake(mustTime())
	var clk clock.Clock = fake
	if level >= slog.LevelError {
		clk = clock.Real{} // benchmarks: real time, as in production
	}
	deps := op.Deps{
		Client:  egress.NewClient(egress.Policy{AllowPrivate: []string{u.Host}}),
		Vault:   vault.NewMemory(secrets),
		Storage: storage.NewMux(storage.NewMemory(clk), &storage.Files{Dir: t.TempDir()}),
		Cache:   cache.New(cache.Config{Clock: clk}),
		Clock:   clk,
		Limits:  op.DefaultLimits(),
	}
	eng := engine.New(engine.Options{Clock: clk, Cache: deps.Cache, Logger: logger})
	cfg := workflow.Config{Deps: deps, Engine: eng}
	for _, o := range options {
		o(&cfg)
	}
	return &harness{runner: workflow.New(cfg), logs: logs, clock: fake}
}

func account(creds ...string) workflow.Account {
	return workflow.Account{ID: "acct-1", Permissions: policy.Permissions{
		Operations: []string{"*"}, Hosts: []string{"*"}, Credentials: creds,
	}}
}

func toJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// spec replaces the spec's example host by the test upstream.
func spec(doc string, srv *httptest.Server) []byte {
	return []byte(strings.ReplaceAll(doc, "https://api.example.com", srv.URL))
}

// jsonHandler answers each path with a fixed JSON body.
func jsonHandler(routes map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}
