package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Every kind of run is created once per client id: a second start with the
// same id answers the first run and starts nothing, and the id naming a run
// of another kind (or another document) is a conflict.
func TestRunsIdempotentByClientIDEveryKind(t *testing.T) {
	s := newServer(t)
	extract := newRecordingAgent(t, "extract")
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "extract", "url": extract.URL}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap), "file": "approve.yaml"}).
		want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": []string{},
		"capability_level": "basic", "agents": []string{"extract"}}, nil)

	// An agent workflow run: the same client id twice is one run, whose
	// steps reach the agent once each.
	const flows = "/api/v1/agent-workflows/runs"
	start := map[string]any{"workflow": twoStepWorkflow("extract"), "input": map[string]any{"text": "x"}, "client_id": "flow-1"}
	first := s.call("POST", flows, key, start).want(t, http.StatusAccepted).str("run_id")
	if again := s.call("POST", flows, key, start).want(t, http.StatusAccepted).str("run_id"); again != first {
		t.Fatalf("the same client id started a second run: %s, then %s", first, again)
	}
	waitFor(t, 20*time.Second, "the agent workflow to finish", func() bool {
		return s.call("GET", flows+"/"+first, key, nil).str("status") == "success"
	})
	if again := s.call("POST", flows, key, start).want(t, http.StatusAccepted); again.str("run_id") != first || again.str("status") != "success" {
		t.Fatalf("the same client id after the run: %s", again.raw)
	}
	for task, n := range extract.counts() {
		if n != 1 {
			t.Fatalf("task %s sent %d times", task, n)
		}
	}
	changed := twoStepWorkflow("extract")
	changed["name"] = "another"
	other := map[string]any{"workflow": changed, "input": map[string]any{"text": "x"}, "client_id": "flow-1"}
	if r := s.call("POST", flows, key, other).want(t, http.StatusConflict); !strings.Contains(string(r.raw), "already used") {
		t.Fatalf("another workflow under the same client id: %s", r.raw)
	}

	// A capability run: the second run with the id answers the first one's
	// state (waiting on its decision) and runs nothing.
	capStart := map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 1}, "client_id": "cap-1"}
	c1 := s.call("POST", "/api/v1/a2s/runs", key, capStart).want(t, http.StatusOK)
	c2 := s.call("POST", "/api/v1/a2s/runs", key, capStart).want(t, http.StatusOK)
	if c1.str("run_id") != c2.str("run_id") || c2.str("status") != "waiting" || c2.get("pending") == nil {
		t.Fatalf("the same client id: %s, then %s", c1.raw, c2.raw)
	}
	if l := s.call("GET", "/api/v1/runs?kind=a2s", key, nil).want(t, http.StatusOK); len(runIDs(l)) != 1 {
		t.Fatalf("runs after two starts with one client id: %s", l.raw)
	}
	// Client ids are one space per account: the agent workflow's id names
	// no capability run.
	capStart["client_id"] = "flow-1"
	s.call("POST", "/api/v1/a2s/runs", key, capStart).want(t, http.StatusConflict)
}
