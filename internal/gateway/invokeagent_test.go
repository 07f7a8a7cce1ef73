package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// invokeDoc is a workflow of one InvokeAgent step named ask.
func invokeDoc(agent, input string) string {
	return jsonl(`{"type":"operationUpdate","operationId":"ask","operation":{"InvokeAgent":{"agent":"`+agent+`","input":`+input+`,"outputPath":"/workflow/answer"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["ask"]}`)
}

// A workflow calls a registered agent as a step through the REST execute
// endpoint, under the account's agents grant.
func TestInvokeAgentInAWorkflow(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "summarizer", "url": mockAgent(t, "summarizer")}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"InvokeAgent"}, "agents": []string{"summarizer"}}, nil)

	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("summarizer", `{"text":"{/input/text}","n":2}`), "input": map[string]any{"text": "hello"}}).want(t, http.StatusOK)
	if r.str("status") != "success" || r.str("results.ask.agent") != "summarizer" || r.str("results.ask.echo.text") != "hello" || r.get("results.ask.echo.n") != float64(2) {
		t.Fatalf("execute: %s", r.raw)
	}

	// Without the agent in its grant: 403 before anything runs.
	_, other := s.account(map[string]any{"operations": []string{"InvokeAgent"}, "agents": []string{"someone-else"}}, nil)
	d := s.call("POST", "/api/v1/workflows/execute", other, map[string]any{"workflow": invokeDoc("summarizer", `{}`)}).want(t, http.StatusForbidden)
	if d.str("error.type") != "PermissionError" || !strings.Contains(string(d.raw), "summarizer") {
		t.Fatalf("without the grant: %s", d.raw)
	}

	// Granted but not registered: the step fails with the registry's answer.
	_, star := s.account(map[string]any{"operations": []string{"InvokeAgent"}, "agents": []string{"*"}}, nil)
	n := s.call("POST", "/api/v1/workflows/execute", star, map[string]any{"workflow": invokeDoc("nobody", `{}`)}).want(t, http.StatusOK)
	if n.str("status") != "failed" || !strings.Contains(string(n.raw), `agent \"nobody\" is not registered`) {
		t.Fatalf("unknown agent: %s", n.raw)
	}
}

// The invoker alone retries an agent step, by the registry's retry_config;
// the engine adds no retry on top (RESOLUTIONS). Every attempt carries the
// same task id and the execution id as correlation id.
func TestInvokeAgentRetriedOnlyByTheInvoker(t *testing.T) {
	type seen struct{ taskID, correlation string }
	var (
		mu       sync.Mutex
		attempts []seen
	)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			// The server's health checks (GET /health) are not attempts.
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var body struct {
			TaskID string `json:"task_id"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		attempts = append(attempts, seen{body.TaskID, r.Header.Get("X-Correlation-ID")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"task_id":"`+body.TaskID+`","status":"error","error":"busy"}`)
	}))
	t.Cleanup(flaky.Close)

	s := newServer(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "flaky", "url": flaky.URL,
		"retry_config": map[string]any{"max_retries": 2, "initial_delay_ms": 0, "max_delay_ms": 0}}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"InvokeAgent"}, "agents": []string{"flaky"}}, nil)
	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": invokeDoc("flaky", `{"q":1}`)}).want(t, http.StatusOK)
	if r.str("status") != "failed" || !strings.Contains(string(r.raw), "503") {
		t.Fatalf("execute: %s", r.raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(attempts) != 3 {
		t.Fatalf("the agent saw %d attempts, want 3 (1 + max_retries 2, no engine retry): %s", len(attempts), r.raw)
	}
	exec := r.str("execution_id")
	for i, a := range attempts {
		if a.taskID != attempts[0].taskID || !strings.HasPrefix(a.taskID, "sluice-") || a.correlation != exec || exec == "" {
			t.Errorf("attempt %d: %+v, first %+v, execution %q", i+1, a, attempts[0], exec)
		}
	}
}
