package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// stallAgent is a loopback agent that never answers a task: started is
// closed when the first task arrives; the request ends when the caller gives
// up (or the test ends).
func stallAgent(t *testing.T) (url string, started chan struct{}) {
	t.Helper()
	started, quit := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			_, _ = w.Write([]byte(`{"status": "healthy"}`))
			return
		}
		once.Do(func() { close(started) })
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: frees held requests
	return srv.URL, started
}

func twoStepWorkflow(second string) map[string]any {
	return map[string]any{"workflow_id": "wf-c", "name": "cancellable", "version": "1.0.0", "start_step": "a",
		"steps": map[string]any{
			"a": map[string]any{"id": "a", "agent_name": "extract", "next_step": "b", "input_mapping": map[string]any{"text": "${workflow.input.text}"}},
			"b": map[string]any{"id": "b", "agent_name": second, "next_step": nil, "input_mapping": map[string]any{"from": "${a.output.echo.text}"}},
		}}
}

func stepStatuses(r response) string {
	steps, _ := r.get("steps").([]any)
	var out []string
	for _, s := range steps {
		m, _ := s.(map[string]any)
		out = append(out, m["step_id"].(string)+"="+m["status"].(string))
	}
	return strings.Join(out, " ")
}

// Cancel, list and their refusals, every answer checked against
// /openapi.json.
func TestAgentWorkflowCancelAndList(t *testing.T) {
	s := newServer(t)
	a := loadAPISchemas(t, s)
	call := func(method, path, key string, body any) response {
		t.Helper()
		r := s.call(method, path, key, body)
		a.check(method, path, r)
		return r
	}
	stallURL, started := stallAgent(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "extract", "url": mockAgent(t, "extract")}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "stall", "url": stallURL}).want(t, http.StatusCreated)
	grant := map[string]any{"agents": []string{"extract", "stall"}}
	ownerID, key := s.account(grant, nil)
	_, other := s.account(grant, nil)
	const runs = "/api/v1/agent-workflows/runs"

	// A run whose second step is in flight when it is cancelled.
	id := call("POST", runs, key, map[string]any{"workflow": twoStepWorkflow("stall"), "input": map[string]any{"text": "hello"}}).
		want(t, http.StatusAccepted).str("run_id")
	<-started
	call("POST", runs+"/awf-nosuchrun/cancel", key, nil).want(t, http.StatusNotFound)
	// Another account's run is not found, exactly like an unknown one.
	if r := call("POST", runs+"/"+id+"/cancel", other, nil).want(t, http.StatusNotFound); strings.Contains(string(r.raw), "another") {
		t.Fatalf("existence leaked: %s", r.raw)
	}
	call("POST", runs+"/"+id+"/cancel?account_id="+ownerID, other, nil).want(t, http.StatusForbidden)
	call("POST", runs+"/"+id+"/cancel", key, map[string]any{"bogus": 1}).want(t, http.StatusBadRequest)
	c := call("POST", runs+"/"+id+"/cancel", key, nil).want(t, http.StatusOK)
	if c.str("status") != "cancelled" || stepStatuses(c) != "a=completed b=cancelled" || !strings.Contains(string(c.raw), `"text":"hello"`) {
		t.Fatalf("cancelled: %s", c.raw)
	}
	g := call("GET", runs+"/"+id, key, nil).want(t, http.StatusOK)
	if g.str("status") != "cancelled" || stepStatuses(g) != "a=completed b=cancelled" || g.str("finished_at") == "" {
		t.Fatalf("GET after cancel: %s", g.raw)
	}
	if r := call("POST", runs+"/"+id+"/cancel", key, nil).want(t, http.StatusConflict); !strings.Contains(string(r.raw), "already cancelled") {
		t.Fatalf("twice: %s", r.raw)
	}

	// A finished run.
	done := call("POST", runs, key, map[string]any{"workflow": twoStepWorkflow("extract"), "input": map[string]any{"text": "x"}}).
		want(t, http.StatusAccepted).str("run_id")
	waitFor(t, 20e9, "the run to finish", func() bool {
		st := s.call("GET", runs+"/"+done, key, nil).str("status")
		return st == "success" || st == "failed"
	})
	if r := call("POST", runs+"/"+done+"/cancel", key, nil).want(t, http.StatusConflict); !strings.Contains(string(r.raw), "already success") {
		t.Fatalf("finished: %s", r.raw)
	}

	// An admin cancels another account's run by naming the account; without
	// it, the run is not the admin's own and is not found.
	third := call("POST", runs, key, map[string]any{"workflow": twoStepWorkflow("stall"), "input": map[string]any{"text": "y"}}).
		want(t, http.StatusAccepted).str("run_id")
	call("POST", runs+"/"+third+"/cancel", s.admin, nil).want(t, http.StatusNotFound)
	if r := call("POST", runs+"/"+third+"/cancel?account_id="+ownerID, s.admin, nil).want(t, http.StatusOK); r.str("status") != "cancelled" {
		t.Fatalf("admin cancel: %s", r.raw)
	}

	// The list: the caller's runs, newest first.
	l := call("GET", runs, key, nil).want(t, http.StatusOK)
	listed, _ := l.get("runs").([]any)
	var ids []string
	for _, r := range listed {
		ids = append(ids, r.(map[string]any)["run_id"].(string))
	}
	if strings.Join(ids, " ") != third+" "+done+" "+id || l.str("next_cursor") != "" {
		t.Fatalf("list: %s", l.raw)
	}
	p1 := call("GET", runs+"?limit=2", key, nil).want(t, http.StatusOK)
	if n := len(p1.get("runs").([]any)); n != 2 || p1.str("next_cursor") == "" {
		t.Fatalf("first page: %s", p1.raw)
	}
	p2 := call("GET", runs+"?limit=2&cursor="+p1.str("next_cursor"), key, nil).want(t, http.StatusOK)
	if got := p2.get("runs").([]any); len(got) != 1 || got[0].(map[string]any)["run_id"] != id {
		t.Fatalf("second page: %s", p2.raw)
	}
	if l := call("GET", runs+"?status=success", key, nil).want(t, http.StatusOK); len(l.get("runs").([]any)) != 1 {
		t.Fatalf("success only: %s", l.raw)
	}
	if l := call("GET", runs, other, nil).want(t, http.StatusOK); len(l.get("runs").([]any)) != 0 {
		t.Fatalf("another account's list: %s", l.raw)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?status=nearly", "?cursor=garbage", "?bogus=1"} {
		call("GET", runs+q, key, nil).want(t, http.StatusBadRequest)
	}
	call("GET", runs, "", nil).want(t, http.StatusUnauthorized)
}
