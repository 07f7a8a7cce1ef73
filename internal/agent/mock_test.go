package agent_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// startMock serves a mock agent on a random port until the test ends.
func startMock(t *testing.T, o agent.MockOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- agent.ServeMock(cctx, ln, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeMock: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func TestMockAgent(t *testing.T) {
	e := newEnv(t)
	url := startMock(t, agent.MockOptions{Name: "echo"})
	e.register(t, "echo", url, nil)
	out, err := e.inv.Invoke(ctx, "echo", "t-1", json.RawMessage(`{"topic":"AI"}`), "c-1")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Agent       string          `json:"agent"`
		Echo        json.RawMessage `json:"echo"`
		ProcessedAt string          `json:"processed_at"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Agent != "echo" || string(got.Echo) != `{"topic":"AI"}` || got.ProcessedAt == "" {
		t.Fatalf("%s %v", out, err)
	}
	// mock_error answers 200 with status "error".
	_, err = e.inv.Invoke(ctx, "echo", "t-2", json.RawMessage(`{"mock_error":"depth must be basic"}`), "")
	fe := wantKind(t, err, fault.Upstream, "mock_error")
	if !strings.Contains(fe.Message, "reported an error: depth must be basic") {
		t.Fatal(fe.Message)
	}
	h, err := e.inv.CheckHealth(ctx, "echo")
	if err != nil || !h.Healthy {
		t.Fatalf("%+v %v", h, err)
	}
	// A request that is not the contract's is a 400.
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"input":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("a bad request: %d", resp.StatusCode)
	}
}

func TestMockAgentErrorModes(t *testing.T) {
	e := newEnv(t)
	e.register(t, "m4xx", startMock(t, agent.MockOptions{Name: "m4xx", ErrorMode: agent.MockError4xx, ErrorRate: 1}), nil)
	e.register(t, "m5xx", startMock(t, agent.MockOptions{Name: "m5xx", ErrorMode: agent.MockError5xx, ErrorRate: 1}), fastRetry(2))
	e.register(t, "mtimeout", startMock(t, agent.MockOptions{Name: "mtimeout", ErrorMode: agent.MockErrorTimeout, ErrorRate: 1}),
		func(en *agenthttp.Entry) { en.Timeout = 50 * time.Millisecond; en.Retry.MaxRetries = 1 })
	e.register(t, "never", startMock(t, agent.MockOptions{Name: "never", ErrorMode: agent.MockError5xx, ErrorRate: 0}), nil)
	// Half the tasks fail: with Rand fixed below and above the rate.
	e.register(t, "half", startMock(t, agent.MockOptions{Name: "half", ErrorMode: agent.MockError5xx, ErrorRate: 0.5,
		Rand: sequence(0.1, 0.9)}), fastRetry(3))

	_, err := e.inv.Invoke(ctx, "m4xx", "t", nil, "")
	if fe := wantKind(t, err, fault.Upstream, "4xx mode"); !strings.Contains(fe.Message, "400 Bad Request: mock-agent m4xx: simulated client error") {
		t.Fatal(fe.Message)
	}
	_, err = e.inv.Invoke(ctx, "m5xx", "t", nil, "")
	if fe := wantKind(t, err, fault.Upstream, "5xx mode"); !strings.Contains(fe.Message, "503") || fe.Details["attempts"] != 3 {
		t.Fatal(fe.Message, fe.Details)
	}
	_, err = e.inv.Invoke(ctx, "mtimeout", "t", nil, "")
	wantKind(t, err, fault.Timeout, "timeout mode")
	if _, err := e.inv.Invoke(ctx, "never", "t", nil, ""); err != nil {
		t.Fatalf("rate 0: %v", err)
	}
	if _, err := e.inv.Invoke(ctx, "half", "t", nil, ""); err != nil || len(e.clock.Sleeps()) == 0 {
		t.Fatalf("rate 0.5: %v (it should have failed once, then succeeded)", err)
	}
}

// sequence returns vs in turn (safe for the server's goroutines).
func sequence(vs ...float64) func() float64 {
	var i atomic.Int64
	return func() float64 { return vs[int(i.Add(1)-1)%len(vs)] }
}

func TestMockOptions(t *testing.T) {
	for _, o := range []agent.MockOptions{
		{Name: "a.b"}, {ErrorMode: "sometimes"}, {ErrorRate: 2}, {ErrorRate: -0.1}, {Delay: -time.Second},
	} {
		if _, err := agent.NewMockAgent(o); err == nil {
			t.Errorf("no error for %+v", o)
		}
	}
	m, err := agent.NewMockAgent(agent.MockOptions{})
	if err != nil || m == nil {
		t.Fatal(err)
	}
}
