package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Error modes of the mock agent.
const (
	MockErrorNone    = "none"
	MockErrorTimeout = "timeout" // hold the request until the caller gives up
	MockError4xx     = "4xx"     // answer 400 with the spec's error body
	MockError5xx     = "5xx"     // answer 503 with the spec's error body
)

// MockOptions configure a MockAgent (`sluice mock-agent`).
type MockOptions struct {
	Name  string
	Delay time.Duration // before each task answer
	// ErrorMode is none, timeout, 4xx or 5xx; ErrorRate the share of tasks
	// that fail that way (0 to 1).
	ErrorMode string
	ErrorRate float64
	Logger    *slog.Logger // nil: discard
	Rand      func() float64
}

// MockAgent is a test agent of the task contract: POST any path but
// /health answers {"task_id", "status": "success", "output": {"agent",
// "echo": <input>, "processed_at"}, "error": null} after Delay, failing a
// share of tasks as ErrorMode says; an input holding "mock_error": "msg"
// gets a 200 with status "error" and that message. GET /health answers
// {"status": "healthy", "agent": name}.
type MockAgent struct {
	o        MockOptions
	requests atomic.Int64
	failures atomic.Int64
	stop     chan struct{} // closed at shutdown: held requests end
	stopOnce sync.Once
}

// NewMockAgent checks o and makes the agent.
func NewMockAgent(o MockOptions) (*MockAgent, error) {
	if o.Name == "" {
		o.Name = "mock-agent"
	}
	if err := agenthttp.CheckName("mock agent", o.Name); err != nil {
		return nil, err
	}
	switch o.ErrorMode {
	case "":
		o.ErrorMode = MockErrorNone
	case MockErrorNone, MockErrorTimeout, MockError4xx, MockError5xx:
	default:
		return nil, fmt.Errorf("error mode %q: want none, timeout, 4xx or 5xx", o.ErrorMode)
	}
	if o.ErrorRate < 0 || o.ErrorRate > 1 || o.ErrorRate != o.ErrorRate {
		return nil, fmt.Errorf("error rate %v: want 0 to 1", o.ErrorRate)
	}
	if o.Delay < 0 {
		return nil, fmt.Errorf("delay %v: must not be negative", o.Delay)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Rand == nil {
		o.Rand = mrand.Float64
	}
	return &MockAgent{o: o, stop: make(chan struct{})}, nil
}

// Requests is how many task requests it has received.
func (m *MockAgent) Requests() int64 { return m.requests.Load() }

// Failures is how many of them it failed on purpose.
func (m *MockAgent) Failures() int64 { return m.failures.Load() }

func (m *MockAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == agenthttp.HealthPath {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			mockJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": "use GET /health"})
			return
		}
		mockJSON(w, http.StatusOK, map[string]any{"status": "healthy", "agent": m.o.Name})
		return
	}
	if r.Method != http.MethodPost {
		mockJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": "tasks are POSTed"})
		return
	}
	m.requests.Add(1)
	body, err := io.ReadAll(io.LimitReader(r.Body, agenthttp.DefaultMaxRequestBytes+1))
	if err != nil {
		return
	}
	req, err := agenthttp.DecodeRequest(body, agenthttp.Limits{})
	if err != nil {
		mockJSON(w, http.StatusBadRequest, map[string]any{"error": "Invalid request format", "details": err.Error()})
		return
	}
	corr := r.Header.Get(agenthttp.HeaderCorrelationID)
	m.o.Logger.Info("task received", "agent", m.o.Name, "taskId", req.TaskID, "correlationId", corr)
	if !m.wait(r.Context(), m.o.Delay) {
		panic(http.ErrAbortHandler) // no answer at all, not an empty 200
	}
	if m.o.ErrorMode != MockErrorNone && m.o.Rand() < m.o.ErrorRate {
		m.failures.Add(1)
		switch m.o.ErrorMode {
		case MockErrorTimeout:
			m.wait(r.Context(), 10*time.Minute)
			panic(http.ErrAbortHandler)
		case MockError4xx:
			mockJSON(w, http.StatusBadRequest, map[string]any{"error": "mock-agent " + m.o.Name + ": simulated client error",
				"details": map[string]any{"task_id": req.TaskID}})
		default:
			mockJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "mock-agent " + m.o.Name + ": simulated server error"})
		}
		return
	}
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	if msg, ok := in["mock_error"].(string); ok {
		mockJSON(w, http.StatusOK, agenthttp.Response{TaskID: req.TaskID, Status: agenthttp.StatusError, Error: &msg})
		return
	}
	out, _ := json.Marshal(map[string]any{"agent": m.o.Name, "echo": req.Input,
		"processed_at": agenthttp.FormatTimestamp(time.Now())})
	mockJSON(w, http.StatusOK, agenthttp.Response{TaskID: req.TaskID, Status: agenthttp.StatusSuccess, Output: out})
}

// wait sleeps d unless the request goes away first (false then).
func (m *MockAgent) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-m.stop:
		return false
	}
}

// Stop ends the requests it holds (delays, timeout mode), so a server
// shutting down need not wait for them.
func (m *MockAgent) Stop() { m.stopOnce.Do(func() { close(m.stop) }) }

func mockJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"the answer could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// ServeMock serves a MockAgent on ln until ctx is done, then shuts down
// (waiting up to 5 s for requests in flight). It is what `sluice
// mock-agent` runs; tests call it with a listener on 127.0.0.1:0.
func ServeMock(ctx context.Context, ln net.Listener, o MockOptions) error {
	m, err := NewMockAgent(o)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	m.Stop()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
