package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// Three kinds of run share the executions table; each list shows its own
// kind with full pages, and the A2E cancel refuses a run another runner owns.
func TestEachListShowsItsOwnKind(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap)}).
		want(t, http.StatusCreated)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "extract", "url": mockAgent(t, "extract")}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"Wait"}, "capability_level": "basic", "agents": []string{"extract"}}, nil)

	var execs, capRuns, flowRuns []string // newest first
	for i := 0; i < 5; i++ {
		e := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitDoc(0)}).want(t, http.StatusOK)
		execs = append([]string{e.str("execution_id")}, execs...)
		c := s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": i}}).
			want(t, http.StatusOK)
		capRuns = append([]string{c.str("run_id")}, capRuns...)
		f := s.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": twoStepWorkflow("extract"),
			"input": map[string]any{"text": "x"}}).want(t, http.StatusAccepted)
		flowRuns = append([]string{f.str("run_id")}, flowRuns...)
	}

	// pages lists path in pages of 2 and checks that every page but the
	// last is full.
	pages := func(path, items, id string) []string {
		t.Helper()
		var ids []string
		cursor := ""
		for n := 0; n < 10; n++ {
			r := s.call("GET", path+"?limit=2&cursor="+cursor, key, nil).want(t, http.StatusOK)
			page, _ := r.get(items).([]any)
			for _, it := range page {
				ids = append(ids, it.(map[string]any)[id].(string))
			}
			cursor = r.str("next_cursor")
			if cursor == "" {
				return ids
			}
			if len(page) != 2 {
				t.Fatalf("%s: a page of %d with a cursor: %s", path, len(page), r.raw)
			}
		}
		t.Fatalf("%s: paging does not end", path)
		return nil
	}
	if got := pages("/api/v1/executions", "executions", "execution_id"); strings.Join(got, " ") != strings.Join(execs, " ") {
		t.Fatalf("A2E list %v, want %v", got, execs)
	}
	if got := pages("/api/v1/agent-workflows/runs", "runs", "run_id"); strings.Join(got, " ") != strings.Join(flowRuns, " ") {
		t.Fatalf("agent workflow list %v, want %v", got, flowRuns)
	}

	// The A2E cancel leaves a capability run to its own runner.
	r := s.call("POST", "/api/v1/executions/"+capRuns[0]+"/cancel", key, nil).want(t, http.StatusConflict)
	if !strings.Contains(string(r.raw), "capability run") || !strings.Contains(string(r.raw), "/api/v1/a2s/runs/") {
		t.Fatalf("A2E cancel of a capability run: %s", r.raw)
	}
	if g := s.call("GET", "/api/v1/a2s/runs/"+capRuns[0], key, nil).want(t, http.StatusOK); g.str("status") != "waiting" {
		t.Fatalf("the run after a refused cancel: %s", g.raw)
	}
	s.call("POST", "/api/v1/executions/"+flowRuns[0]+"/cancel", key, nil).want(t, http.StatusConflict)
}
