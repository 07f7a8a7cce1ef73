package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A workflow given as a JSON array of messages is answered as the same
// messages given as a JSONL string: the same report, line for line, from
// validate and from execute; and a valid one runs.
func TestWorkflowArrayAnswersAsJSONL(t *testing.T) {
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"FilterData", "Wait"}}, nil)
	lines := []string{
		`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":-5}}}`,
		`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"v","operator":"~"}]}},"extra":1}`,
		`{"type":"beginExecution","executionId":"` + uniqueID() + `","operationOrder":["w","f","ghost"]}`,
	}
	msgs := make([]any, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"/api/v1/workflows/validate", "/api/v1/workflows/execute"} {
		status := 400
		if strings.HasSuffix(path, "validate") {
			status = 200
		}
		text := s.call("POST", path, key, map[string]any{"workflow": strings.Join(lines, "\n") + "\n"}).want(t, status)
		array := s.call("POST", path, key, map[string]any{"workflow": msgs}).want(t, status)
		if string(array.raw) != string(text.raw) || array.get("valid") != false || !strings.Contains(string(array.raw), `"line":2`) {
			t.Fatalf("%s: array answered\n%s\nJSONL answered\n%s", path, array.raw, text.raw)
		}
	}
	// An element that is no message object is named by its index.
	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": []any{msgs[0], "x"}}).want(t, 400)
	if !strings.Contains(string(r.raw), "element 1 is not a message object") {
		t.Fatalf("not an object: %s", r.raw)
	}
	ok := []any{map[string]any{"type": "operationUpdate", "operationId": "w", "operation": map[string]any{"Wait": map[string]any{"duration": 1}}},
		map[string]any{"type": "beginExecution", "executionId": uniqueID(), "operationOrder": []any{"w"}}}
	if r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": ok}).want(t, 200); r.str("status") != "success" {
		t.Fatalf("valid array: %s", r.raw)
	}
}
