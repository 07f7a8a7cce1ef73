package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

var ctx = context.Background()

// env is a registry and invoker over a SQLite store in a temp dir, a sealed
// vault in memory, a fake clock and a log buffer.
type env struct {
	store *sqlite.DB
	vault *vault.Sealed
	reg   *agent.Registry
	inv   *agent.Invoker
	clock *clock.Fake
	logs  *syncBuffer
}

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

type envOption func(*agent.RegistryOptions, *agent.InvokerOptions)

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	ring, err := vault.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	v := vault.NewSealed(vault.NewMemoryRecords(), ring, vault.Options{Logger: logger})
	fc := clock.NewFake(time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC))
	ro := agent.RegistryOptions{Store: db, Vault: v, Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}, Clock: fc, Logger: logger}
	iopt := agent.InvokerOptions{Clock: fc, Logger: logger, Jitter: func() float64 { return 0.5 }}
	for _, o := range opts {
		o(&ro, &iopt)
	}
	reg := agent.NewRegistry(ro)
	iopt.Registry = reg
	return &env{store: db, vault: v, reg: reg, inv: agent.NewInvoker(iopt), clock: fc, logs: logs}
}

// register stores an entry for url with the given changes.
func (e *env) register(t *testing.T, name, url string, change func(*agenthttp.Entry)) agenthttp.Entry {
	t.Helper()
	en := agenthttp.NewEntry(name, url)
	if change != nil {
		change(&en)
	}
	got, _, err := e.reg.Register(ctx, en)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// script is an agent whose answers are given in order (the last repeats);
// it records every request.
type script struct {
	mu      sync.Mutex
	answers []answer
	reqs    []recorded
	srv     *httptest.Server
}

type answer struct {
	status int
	body   string // "$TASK" is replaced by the request's task_id
	header map[string]string
	hang   bool // wait until the caller gives up
}

type recorded struct {
	header http.Header
	body   agenthttp.Request
}

func newScript(t *testing.T, answers ...answer) *script {
	s := &script{answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req agenthttp.Request
		_ = json.Unmarshal(b, &req)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, recorded{header: r.Header.Clone(), body: req})
		a := s.answers[min(n, len(s.answers)-1)]
		s.mu.Unlock()
		if a.hang {
			<-r.Context().Done()
			return
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, strings.ReplaceAll(a.body, "$TASK", req.TaskID))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *script) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *script) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func ok(output string) answer {
	return answer{status: 200, body: `{"task_id":"$TASK","status":"success","output":` + output + `,"error":null}`}
}

func status(code int, body string) answer { return answer{status: code, body: body} }

func wantKind(t *testing.T, err error, kind fault.Kind, what string) *fault.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, kind)
	}
	fe, isFault := fault.As(err)
	if !isFault {
		t.Fatalf("%s: %T %v is not a *fault.Error", what, err, err)
	}
	if fe.Kind != kind {
		t.Fatalf("%s: kind %v (%v), want %v", what, fe.Kind, err, kind)
	}
	return fe
}

// fastRetry is a retry policy whose waits the fake clock skips anyway,
// named so the sleeps can be asserted.
func fastRetry(max int) func(*agenthttp.Entry) {
	return func(e *agenthttp.Entry) {
		e.Retry = agenthttp.RetryConfig{MaxRetries: max, InitialDelay: time.Second, MaxDelay: 30 * time.Second, BackoffMultiplier: 2}
	}
}

var _ store.Agents = (*sqlite.DB)(nil)
