package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var docSeq atomic.Int64

// uniqueID is a fresh client executionId: the same id with the same document
// is the same execution (RESOLUTIONS), so tests that mean a new one use these.
func uniqueID() string { return fmt.Sprintf("test-%d", docSeq.Add(1)) }

// waitDoc is a one-Wait workflow.
func waitDoc(ms int) string {
	return jsonl(
		fmt.Sprintf(`{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":%d}}}`, ms),
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["pause"]}`)
}

// fetchDoc GETs url into /workflow/data and filters it.
func fetchDoc(url, executionID string) string {
	if executionID == "" {
		executionID = uniqueID()
	}
	return jsonl(
		`{"type":"operationUpdate","operationId":"fetch","operation":{"ApiCall":{"method":"GET","url":"`+url+`","outputPath":"/workflow/users"}}}`,
		`{"type":"operationUpdate","operationId":"active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active"}}}`,
		`{"type":"beginExecution","executionId":"`+executionID+`","operationOrder":["fetch","active"]}`)
}

const usersJSON = `[{"name":"ann","status":"active"},{"name":"bob","status":"idle"}]`

func TestValidateAndExecuteSync(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, usersJSON)
	_, key := s.anyAccount()

	v := s.call("POST", "/api/v1/workflows/validate", key, map[string]any{"workflow": fetchDoc(up.URL+"/users", "")}).want(t, 200)
	if v.get("valid") != true {
		t.Fatalf("validate: %s", v.raw)
	}
	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/users", "")}).want(t, 200)
	if r.str("status") != "success" || len(r.get("results.active").([]any)) != 1 || !strings.HasPrefix(r.str("execution_id"), "exec-") {
		t.Fatalf("execute: %s", r.raw)
	}
	// The record is kept: GET shows the same results.
	g := s.call("GET", "/api/v1/executions/"+r.str("execution_id"), key, nil).want(t, 200)
	if g.str("status") != "success" || len(g.get("results.active").([]any)) != 1 || g.str("completed_at") == "" {
		t.Fatalf("get: %s", g.raw)
	}
	// The workflow as an array of message objects works too.
	var msgs []any
	for _, line := range strings.Split(strings.TrimSpace(fetchDoc(up.URL+"/users", "")), "\n") {
		var m any
		_ = json.Unmarshal([]byte(line), &m)
		msgs = append(msgs, m)
	}
	s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": msgs}).want(t, 200)

	// A failed workflow is still 200 with status failed (RESOLUTIONS).
	down := upstreamStatus(t, 400)
	r = s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(down.URL+"/x", "")}).want(t, 200)
	if r.str("status") != "failed" || len(r.get("errors").([]any)) != 1 {
		t.Fatalf("failed workflow: %s", r.raw)
	}
}

func upstreamStatus(t *testing.T, status int) *httptestServer {
	srv := newHTTPTest(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	t.Cleanup(srv.Close)
	return srv
}

func TestInvalidAndForbiddenWorkflows(t *testing.T) {
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"ApiCall", "Wait"}, "hosts": []string{"api.example.com"}}, nil)
	// Invalid: 400 with the validate body.
	bad := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":-5}}}`, `{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w","ghost"]}`)
	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": bad}).want(t, 400)
	if r.get("valid") != false || len(r.get("errors").([]any)) < 2 {
		t.Fatalf("invalid workflow: %s", r.raw)
	}
	// A host the account may not use: 403 PermissionError, nothing runs.
	r = s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc("https://evil.example.org/x", "")}).want(t, 403)
	if r.str("error.type") != "PermissionError" {
		t.Fatalf("forbidden host: %s", r.raw)
	}
	// An operation the account may not use.
	filter := jsonl(`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/x","conditions":[],"outputPath":"/workflow/y"}}}`, `{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["f"]}`)
	r = s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": filter}).want(t, 403)
	if r.str("error.type") != "PermissionError" {
		t.Fatalf("forbidden operation: %s", r.raw)
	}
	// Loopback is refused unless allowlisted (this server allows 127.0.0.1 only).
	_, all := s.anyAccount()
	r = s.call("POST", "/api/v1/workflows/execute", all, map[string]any{"workflow": fetchDoc("http://127.0.0.2:9/x", "")}).want(t, 200)
	if r.str("status") != "failed" || !strings.Contains(string(r.raw), "PermissionError") {
		t.Fatalf("loopback outside the allowlist: %s", r.raw)
	}
	r = s.call("GET", "/api/v1/executions?status=failed", all, nil).want(t, 200)
	if len(r.get("executions").([]any)) != 1 {
		t.Fatalf("list: %s", r.raw)
	}
}

func TestAsyncExecutionAndEvents(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, usersJSON)
	_, key := s.anyAccount()
	r := s.call("POST", "/api/v1/workflows/execute?async=true", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", "")}).want(t, 202)
	id := r.str("execution_id")
	if r.str("status") != "queued" || id == "" {
		t.Fatalf("async: %s", r.raw)
	}
	var g response
	waitFor(t, 10*time.Second, "the async execution", func() bool {
		g = s.call("GET", "/api/v1/executions/"+id, key, nil).want(t, 200)
		return g.str("status") == "success"
	})
	if len(g.get("results.active").([]any)) != 1 || g.get("async") != true {
		t.Fatalf("async result: %s", g.raw)
	}
	// Replay: every frame, in order, then the end.
	frames, end := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "")
	if len(frames) < 5 || end == "" {
		t.Fatalf("events: %d frames, end %q", len(frames), end)
	}
	for i, f := range frames {
		if f.id != fmt.Sprint(i+1) || f.frame["request_id"] != id || f.frame["sequence"] != float64(i) {
			t.Fatalf("frame %d: id %s %v", i, f.id, f.frame)
		}
	}
	last := frames[len(frames)-1].frame
	if last["is_final"] != true || last["response_kind"] != "e2a.complete" {
		t.Fatalf("last frame: %v", last)
	}
	// Resume after a Last-Event-ID: only what follows.
	rest, _ := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "3")
	if len(rest) != len(frames)-3 {
		t.Fatalf("after 3: %d frames of %d", len(rest), len(frames))
	}
}

func TestLiveEventsOfARunningExecution(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	doc := jsonl(
		`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":300}}}`,
		`{"type":"operationUpdate","operationId":"b","operation":{"Wait":{"duration":300}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["a","b"]}`)
	id := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "async": true}).want(t, 202).str("execution_id")
	frames, end := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "")
	if end == "" || frames[len(frames)-1].frame["is_final"] != true {
		t.Fatalf("the live stream did not end with the final frame: %d frames, end %q", len(frames), end)
	}
}

type sseEvent struct {
	id    string
	frame map[string]any
}

// readSSE reads an event stream to its end event.
func readSSE(t *testing.T, s *testServer, key, path, lastID string) ([]sseEvent, string) {
	t.Helper()
	return readSSEFrom(t, s.http.URL, key, path, lastID)
}

func readSSEAt(t *testing.T, url, key, path string) ([]sseEvent, string) {
	t.Helper()
	return readSSEFrom(t, url, key, path, "")
}

func readSSEFrom(t *testing.T, url, key, path, lastID string) ([]sseEvent, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out, end, err := parseSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out, end
}

func TestExecutionsAreScopedToTheirAccount(t *testing.T) {
	s := newServer(t)
	_, alice := s.anyAccount()
	_, bob := s.anyAccount()
	id := s.call("POST", "/api/v1/workflows/execute", alice, map[string]any{"workflow": waitDoc(0)}).want(t, 200).str("execution_id")
	s.call("GET", "/api/v1/executions/"+id, bob, nil).want(t, 404)
	s.call("POST", "/api/v1/executions/"+id+"/cancel", bob, nil).want(t, 404)
	r := s.call("GET", "/api/v1/executions/"+id+"/events", bob, nil).want(t, 404)
	if r.str("error.type") == "" {
		t.Fatalf("events of another's execution: %s", r.raw)
	}
	if list := s.call("GET", "/api/v1/executions", bob, nil).want(t, 200); len(list.get("executions").([]any)) != 0 {
		t.Fatalf("bob sees alice's executions: %s", list.raw)
	}
}

func TestCancel(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	id := s.call("POST", "/api/v1/workflows/execute?async=true", key, map[string]any{"workflow": waitDoc(60000)}).want(t, 202).str("execution_id")
	waitFor(t, 5*time.Second, "the execution to run", func() bool {
		return s.call("GET", "/api/v1/executions/"+id, key, nil).str("status") == "running"
	})
	r := s.call("POST", "/api/v1/executions/"+id+"/cancel", key, nil).want(t, 200)
	if r.str("status") != "cancelled" {
		t.Fatalf("cancel: %s", r.raw)
	}
	s.call("POST", "/api/v1/executions/"+id+"/cancel", key, nil).want(t, 409)
	_, end := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "")
	if end == "" {
		t.Fatal("a cancelled execution's stream has no end")
	}
	time.Sleep(50 * time.Millisecond) // the stopped run must not overwrite the record
	if st := s.call("GET", "/api/v1/executions/"+id, key, nil).str("status"); st != "cancelled" {
		t.Fatalf("status after cancel: %s", st)
	}
}

func TestClientExecutionIDIsAnIdempotencyKey(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, usersJSON)
	_, key := s.anyAccount()
	_, other := s.anyAccount()
	doc := fetchDoc(up.URL+"/u", "order-42")
	first := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, 200)
	again := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, 200)
	if first.str("execution_id") != again.str("execution_id") || again.str("status") != "success" {
		t.Fatalf("same id and document: %s then %s", first.raw, again.raw)
	}
	s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/v", "order-42")}).want(t, 409)
	// Per account: another account's same id is its own.
	o := s.call("POST", "/api/v1/workflows/execute", other, map[string]any{"workflow": doc}).want(t, 200)
	if o.str("execution_id") == first.str("execution_id") {
		t.Fatal("idempotency keys are shared between accounts")
	}
	// Async too.
	a1 := s.call("POST", "/api/v1/workflows/execute?async=true", key, map[string]any{"workflow": fetchDoc(up.URL+"/w", "order-43")}).want(t, 202)
	a2 := s.call("POST", "/api/v1/workflows/execute?async=true", key, map[string]any{"workflow": fetchDoc(up.URL+"/w", "order-43")})
	if a2.str("execution_id") != a1.str("execution_id") {
		t.Fatalf("async repeat: %s then %s", a1.raw, a2.raw)
	}
}

func TestRateLimits(t *testing.T) {
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"*"}}, map[string]any{"requests_per_minute": 3})
	var last response
	for i := range 3 {
		last = s.call("GET", "/api/v1/capabilities", key, nil).want(t, 200)
		if last.header.Get("X-RateLimit-Limit") != "3" || last.header.Get("X-RateLimit-Remaining") != fmt.Sprint(2-i) {
			t.Fatalf("headers of request %d: %v", i, last.header)
		}
	}
	r := s.call("GET", "/api/v1/capabilities", key, nil).want(t, 429)
	if r.str("error") != "Rate limit exceeded" || r.str("message") != "Rate limit exceeded: 3 requests per minute" ||
		r.get("retry_after") == nil || r.header.Get("Retry-After") == "" {
		t.Fatalf("429: %v %s", r.header, r.raw)
	}
	// Limits key on the account: another account is unaffected.
	_, other := s.anyAccount()
	s.call("GET", "/api/v1/capabilities", other, nil).want(t, 200)
	st := s.call("GET", "/api/v1/rate-limit/status", other, nil).want(t, 200)
	if st.get("limits.requests_per_minute") != float64(60) || st.get("usage.requests_last_minute") == nil {
		t.Fatalf("status: %s", st.raw)
	}
	// The audit trail records the refusal.
	waitFor(t, 5*time.Second, "the audit record", func() bool {
		a := s.call("GET", "/api/v1/admin/audit?decision=limited", s.admin, nil).want(t, 200)
		return len(a.get("records").([]any)) == 1
	})
}

func TestAPICallLimitCountsAttempts(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, usersJSON)
	_, key := s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}}, map[string]any{"api_calls_per_minute": 1})
	s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/a", "")}).want(t, 200)
	doc := jsonl(`{"type":"operationUpdate","operationId":"fetch","operation":{"ApiCall":{"method":"GET","url":"`+up.URL+`/b","retry":{"maxRetries":0},"outputPath":"/workflow/u"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["fetch"]}`)
	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, 200)
	if r.str("status") != "failed" || !strings.Contains(string(r.raw), "Rate limit exceeded: 1 API calls per minute") {
		t.Fatalf("second API call: %s", r.raw)
	}
}

// A workflow without side effects skips the lookup of its executionId before
// it runs; the answer is the same: the earlier execution, or 409.
func TestClientExecutionIDOfAPureWorkflow(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	doc := func(min int) string {
		return jsonl(fmt.Sprintf(`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"v","operator":">","value":%d}],"outputPath":"/workflow/big"}}}`, min),
			`{"type":"beginExecution","executionId":"pure-1","operationOrder":["f"]}`)
	}
	in := map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 5}}}
	first := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc(2), "input": in}).want(t, 200)
	again := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc(2), "input": in}).want(t, 200)
	if first.str("execution_id") != again.str("execution_id") || len(again.get("results.f").([]any)) != 1 {
		t.Fatalf("same id and document: %s then %s", first.raw, again.raw)
	}
	s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc(3), "input": in}).want(t, 409)
}
