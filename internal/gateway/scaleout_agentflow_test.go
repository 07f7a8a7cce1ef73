package gateway_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// An agent workflow run is a run of the run service like an execution: it
// runs on the gateway that leased it, and a cancel through another gateway
// sharing the store stops its step in flight there (the agent's request
// ends), with one final frame, cancelled, through either gateway.
func TestAgentWorkflowAcrossGateways(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	started, released := make(chan struct{}, 1), make(chan struct{}, 1)
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			_, _ = w.Write([]byte(`{"status": "healthy"}`))
			return
		}
		// The body read, the server notices the caller hanging up.
		_, _ = io.Copy(io.Discard, r.Body)
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			released <- struct{}{}
		case <-time.After(2 * time.Minute):
		}
	}))
	t.Cleanup(stall.Close)

	a := startServer(t, dir, onPG)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "extract", "url": mockAgent(t, "extract")}).want(t, http.StatusCreated)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "stall", "url": stall.URL}).want(t, http.StatusCreated)
	_, key := a.account(map[string]any{"operations": []string{"*"}, "agents": []string{"extract", "stall"}}, nil)
	id := a.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": twoStepWorkflow("stall"), "input": map[string]any{"text": "x"}}).
		want(t, http.StatusAccepted).str("run_id")
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the run's second step never reached its agent")
	}
	b := startServer(t, dir, onPG)
	if r := b.call("POST", "/api/v1/runs/"+id+"/cancel", key, nil).want(t, http.StatusOK); r.str("status") != "cancelled" ||
		stepStatuses(response{body: r.get("detail").(map[string]any)}) != "a=completed b=cancelled" {
		t.Fatalf("cancel through b: %s", r.raw)
	}
	select {
	case <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the step in flight on a was not stopped")
	}
	for _, s := range []*testServer{a, b} {
		frames, finals := streamThrough(t, s, key, id)
		if finals != 1 || resultStatus(frames[len(frames)-1]) != "cancelled" {
			t.Fatalf("through %s: %d frames, %d final, last %v", s.http.URL, len(frames), finals, frames[len(frames)-1])
		}
	}
}
