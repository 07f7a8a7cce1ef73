package gateway_test

import (
	"net/http"
	"regexp"
	"testing"
)

// An op.<Operation> tool call is stored once, when it has run, before its
// answer: the execution its summary names reads back at once through the
// executions and the run API, final, and each call is listed once.
func TestOperationCallStoredOnceWhenDone(t *testing.T) {
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"FilterData"}},
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	idIn := regexp.MustCompile(`execution (exec-[0-9a-f]+) success`)
	for i := range 20 {
		status, frames := postEnvelope(t, s, key, map[string]any{"request_id": "opc", "method": "tool.call", "params": map[string]any{
			"tool_name": "op.FilterData", "arguments": map[string]any{"inputPath": "/input/xs", "input": map[string]any{"xs": []any{1, 5}},
				"conditions": []any{map[string]any{"field": "", "operator": "<", "value": 3}}}}})
		if status != http.StatusOK || len(frames) == 0 {
			t.Fatalf("call %d: %d %v", i, status, frames)
		}
		m := idIn.FindStringSubmatch(mustJSON(t, frames[len(frames)-1].Body))
		if m == nil {
			t.Fatalf("call %d: no execution named: %v", i, frames[len(frames)-1].Body)
		}
		if r := s.call("GET", "/api/v1/executions/"+m[1], key, nil).want(t, http.StatusOK); r.str("status") != "success" {
			t.Fatalf("the call's execution right after its answer: %s", r.raw)
		}
		if r := s.call("GET", "/api/v1/runs/"+m[1], key, nil).want(t, http.StatusOK); r.str("status") != "success" || r.str("kind") != "a2e" {
			t.Fatalf("the call's run right after its answer: %s", r.raw)
		}
	}
	l := s.call("GET", "/api/v1/executions?limit=100", key, nil).want(t, http.StatusOK)
	if list, _ := l.get("executions").([]any); len(list) != 20 {
		t.Fatalf("20 calls, %d executions listed", len(list))
	}
}
