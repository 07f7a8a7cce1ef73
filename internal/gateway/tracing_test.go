package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

// traceparents keeps the traceparent headers an upstream received.
type traceparents struct {
	mu   sync.Mutex
	seen []string
}

func (tp *traceparents) add(h string) {
	tp.mu.Lock()
	tp.seen = append(tp.seen, h)
	tp.mu.Unlock()
}

func (tp *traceparents) all() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]string(nil), tp.seen...)
}

// A REST execute sent with a traceparent is one trace: the server span
// (HTTP conventions), the call with its admission steps, the run, each
// operation and its attempt, and the ApiCall's client span, whose
// traceparent the upstream receives. No span holds the API key, the vault
// value or the bearer token.
func TestTraceOfARESTExecute(t *testing.T) {
	rec := telemetrytest.Install(t)
	const secret = "tok-trace-5a4b3c2d1e0f9988"
	var got traceparents
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.add(r.Header.Get("traceparent"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(usersJSON))
	}))
	defer up.Close()
	s := newServer(t)
	s.call("PUT", "/api/v1/admin/credentials/api", s.admin, map[string]any{"type": "bearer-token", "value": secret}).want(t, 200)
	_, key := s.anyAccount("api")
	doc := jsonl(`{"type":"operationUpdate","operationId":"fetch","operation":{"ApiCall":{"method":"GET","url":"`+up.URL+`/users","headers":{"Authorization":{"credentialRef":{"id":"api"}}},"outputPath":"/workflow/users"}}}`,
		`{"type":"operationUpdate","operationId":"active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["fetch","active"]}`)
	req, _ := http.NewRequest("POST", s.http.URL+"/api/v1/workflows/execute", strings.NewReader(`{"workflow":`+quoteJSON(doc)+`}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("traceparent", telemetrytest.Traceparent)
	if r := s.do(req).want(t, 200); r.str("status") != "success" {
		t.Fatalf("execute: %s", r.raw)
	}

	tr := rec.Await(t, telemetrytest.TraceID, "POST /api/v1/workflows/execute")
	server := tr.One(t, "POST /api/v1/workflows/execute")
	if server.SpanKind != trace.SpanKindServer || !server.Parent.IsRemote() ||
		telemetrytest.Attr(server, "http.route") != "/api/v1/workflows/execute" ||
		telemetrytest.Attr(server, "http.request.method") != "POST" ||
		telemetrytest.Attr(server, "http.response.status_code") != "200" {
		t.Fatalf("server span %+v", server)
	}
	call := tr.One(t, "workflow.execute")
	// The key is checked before the body is read (Preauthenticate): under
	// the request, before the call.
	tr.Under(t, tr.One(t, "authenticate"), "POST /api/v1/workflows/execute")
	for _, step := range []string{"admit", "run a2e"} {
		tr.Under(t, tr.One(t, step), "workflow.execute")
	}
	tr.Under(t, call, "POST /api/v1/workflows/execute")
	fetch := tr.One(t, "operation ApiCall")
	tr.Under(t, fetch, "run a2e")
	assertExemplars(t, s, "sluice_request_duration_seconds_bucket", "sluice_operation_duration_seconds_bucket")
	// Every operation has its span by default (telemetry.quick_step_events
	// is off), a pure one too.
	if filter := tr.One(t, "operation FilterData"); telemetrytest.Attr(filter, "sluice.operation.type") != "FilterData" {
		t.Fatalf("the FilterData step's span %+v", filter)
	}
	tr.Under(t, tr.One(t, "operation FilterData"), "run a2e")
	if telemetrytest.Attr(fetch, "sluice.operation.id") != "fetch" {
		t.Fatalf("operation span %+v", fetch)
	}
	client := tr.One(t, "GET")
	tr.Under(t, client, "attempt")
	tr.Under(t, client, "operation ApiCall")
	if client.SpanKind != trace.SpanKindClient || telemetrytest.Attr(client, "http.response.status_code") != "200" ||
		telemetrytest.Attr(client, "server.address") != "127.0.0.1" {
		t.Fatalf("client span %+v", client)
	}
	// The upstream joined the trace: its parent is the client span.
	seen := got.all()
	if len(seen) != 1 || seen[0] != "00-"+telemetrytest.TraceID+"-"+client.SpanContext.SpanID().String()+"-01" {
		t.Fatalf("the upstream received traceparent %q, want the client span %s", seen, client.SpanContext.SpanID())
	}
	rec.AssertNoSecret(t, secret, key, s.admin)
}

// A run queued by an async execute continues the trace of the request that
// queued it: the queue wait and the run are in it.
func TestTraceOfAQueuedExecution(t *testing.T) {
	rec := telemetrytest.Install(t)
	up := upstreamJSON(t, usersJSON)
	s := newServer(t)
	_, key := s.anyAccount()
	req, _ := http.NewRequest("POST", s.http.URL+"/api/v1/workflows/execute?async=true",
		strings.NewReader(`{"workflow":`+quoteJSON(fetchDoc(up.URL+"/users", ""))+`}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("traceparent", telemetrytest.Traceparent)
	s.do(req).want(t, 202)
	waitFor(t, 10*time.Second, "the queued run's span", func() bool {
		return len(rec.Trace(telemetrytest.TraceID).Named("process executions")) > 0
	})
	tr := rec.Trace(telemetrytest.TraceID)
	tr.Under(t, tr.One(t, "run a2e"), "process executions")
	tr.Under(t, tr.One(t, "operation ApiCall"), "run a2e")
	wait := tr.One(t, "queue wait executions")
	if telemetrytest.Attr(wait, "messaging.system") != "sluice" || wait.SpanKind != trace.SpanKindConsumer {
		t.Fatalf("queue wait span %+v", wait)
	}
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// An agent step goes through the queue to a worker and on to the agent:
// the send, the queue wait, the worker's process span, the GenAI
// "invoke_agent <name>" span with its attempt, and the agent's own request
// are one trace.
func TestTraceOfAnAgentInvokeThroughTheQueue(t *testing.T) {
	rec := telemetrytest.Install(t)
	var got traceparents
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.add(r.Header.Get("traceparent"))
		var task struct {
			TaskID string `json:"task_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&task)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"task_id": task.TaskID, "status": "success", "output": map[string]any{"ok": true}})
	}))
	defer agent.Close()
	s := newServer(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "summarizer", "url": agent.URL}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"InvokeAgent"}, "agents": []string{"summarizer"}}, nil)
	req, _ := http.NewRequest("POST", s.http.URL+"/api/v1/workflows/execute",
		strings.NewReader(`{"workflow":`+quoteJSON(invokeDoc("summarizer", `{"text":"hi"}`))+`}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("traceparent", telemetrytest.Traceparent)
	if r := s.do(req).want(t, 200); r.str("status") != "success" {
		t.Fatalf("execute: %s", r.raw)
	}
	// The worker's process span ends when it has acked the task, which
	// may be after the response: wait for it too.
	tr := rec.Await(t, telemetrytest.TraceID, "POST /api/v1/workflows/execute", "process agent.tasks")
	tr.Under(t, tr.One(t, "process agent.tasks"), "send agent.tasks")
	tr.Under(t, tr.One(t, "queue wait agent.tasks"), "send agent.tasks")
	tr.Under(t, tr.One(t, "send agent.tasks"), "operation InvokeAgent")
	inv := tr.One(t, "invoke_agent summarizer")
	if inv.SpanKind != trace.SpanKindClient || telemetrytest.Attr(inv, "gen_ai.operation.name") != "invoke_agent" ||
		telemetrytest.Attr(inv, "gen_ai.agent.name") != "summarizer" {
		t.Fatalf("invoke_agent span %+v", inv)
	}
	tr.Under(t, inv, "operation InvokeAgent")
	client := tr.One(t, "POST")
	tr.Under(t, client, "invoke_agent summarizer")
	// The agent's health checks come in traces of their own; the task's
	// request is the one in this trace.
	var ours []string
	for _, tp := range got.all() {
		if strings.Contains(tp, telemetrytest.TraceID) {
			ours = append(ours, tp)
		}
	}
	if len(ours) != 1 || ours[0] != "00-"+telemetrytest.TraceID+"-"+client.SpanContext.SpanID().String()+"-01" {
		t.Fatalf("the agent received traceparent %q in the trace, want the client span %s", ours, client.SpanContext.SpanID())
	}
}

// A session's tool call continues the trace its _meta names: the call is
// the server span, the GenAI "execute_tool <name>" span under it, the run
// and its operation under that.
func TestTraceOfASessionToolCall(t *testing.T) {
	rec := telemetrytest.Install(t)
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"FilterData"}}, nil)
	r := openRaw(t, s)
	r.handshake(key)
	r.send("tool/call/req", map[string]any{"tool_name": "op.FilterData", "_meta": map[string]any{"traceparent": telemetrytest.Traceparent},
		"arguments": map[string]any{"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1}},
			"input": map[string]any{"xs": []any{map[string]any{"v": 0}, map[string]any{"v": 2}}}}})
	if m := r.recv(); m["type"] != "tool/call/resp" {
		t.Fatalf("call: %v", m)
	}
	tr := rec.Await(t, telemetrytest.TraceID, "tool.call")
	call := tr.One(t, "tool.call")
	if call.SpanKind != trace.SpanKindServer || !call.Parent.IsRemote() || telemetrytest.Attr(call, "sluice.transport") == "" {
		t.Fatalf("call span %+v", call)
	}
	tool := tr.One(t, "execute_tool op.FilterData")
	if telemetrytest.Attr(tool, "gen_ai.tool.name") != "op.FilterData" || telemetrytest.Attr(tool, "gen_ai.operation.name") != "execute_tool" {
		t.Fatalf("tool span %+v", tool)
	}
	tr.Under(t, tool, "tool.call")
	tr.Under(t, tr.One(t, "operation FilterData"), "run a2e")
	tr.Under(t, tr.One(t, "run a2e"), "execute_tool op.FilterData")
	rec.AssertNoSecret(t, key)
}

// An MCP tools/call is traced on both transports: over Streamable HTTP under
// the request's traceparent header, over stdio under the trace its _meta
// names.
func TestTraceOfAnMCPCall(t *testing.T) {
	rec := telemetrytest.Install(t)
	s := newServer(t)
	_, key := s.anyAccount()
	args := map[string]any{"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1}},
		"input": map[string]any{"xs": []any{map[string]any{"v": 0}, map[string]any{"v": 2}}}}
	t.Run("http", func(t *testing.T) {
		c := mcp.NewClient(&mcp.Implementation{Name: "sluice-test", Version: "1"}, nil)
		hc := &http.Client{Transport: headerTransport{"traceparent": telemetrytest.Traceparent, "Authorization": "Bearer " + key}}
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.http.URL + "/mcp", MaxRetries: -1, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "op.FilterData", Arguments: args}); err != nil || r.IsError {
			t.Fatalf("call: %v %v", r, err)
		}
		tr := rec.Await(t, telemetrytest.TraceID, "tool.call", "POST /mcp")
		tool := tr.One(t, "execute_tool op.FilterData")
		tr.Under(t, tool, "tool.call")
		tr.Under(t, tool, "POST /mcp")
	})
	t.Run("stdio", func(t *testing.T) {
		const other = "0af7651916cd43dd8448eb211c80319c"
		cs := mcpStdio(t, s, key, nil)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "op.FilterData", Arguments: args,
			Meta: mcp.Meta{"traceparent": "00-" + other + "-b7ad6b7169203331-01"}})
		if err != nil {
			t.Fatal(err)
		}
		tr := rec.Await(t, other, "tool.call")
		call := tr.One(t, "tool.call")
		if !call.Parent.IsRemote() || call.Parent.SpanID().String() != "b7ad6b7169203331" {
			t.Fatalf("call span's parent %v, want the _meta's", call.Parent)
		}
		tr.Under(t, tr.One(t, "execute_tool op.FilterData"), "tool.call")
	})
	rec.AssertNoSecret(t, key)
}

// headerTransport sets headers on every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// An A2A task sent with a traceparent is one trace: the request, the run
// it queued (a task is a run), the worker's GenAI span of the agent and
// the agent's own request.
func TestTraceOfAnA2ATask(t *testing.T) {
	rec := telemetrytest.Install(t)
	s := newServer(t)
	both, _, _ := registerA2AAgents(t, s)
	echo := newA2ACaller(t, s, "echo", both, false)
	echo.params["traceparent"] = []string{telemetrytest.Traceparent}
	task, err := echo.send(dataMessage("m-traced", map[string]any{"text": "hello"}), false)
	if err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("send: %v %+v", err, task)
	}
	tr := rec.Await(t, telemetrytest.TraceID, "run agent_workflow", "invoke_agent echo")
	server := tr.One(t, "POST /a2a/{agent}/")
	if telemetrytest.Attr(server, "http.route") != "/a2a/{agent}/" || server.SpanKind != trace.SpanKindServer {
		t.Fatalf("server span %+v", server)
	}
	tr.Under(t, tr.One(t, "process executions"), "POST /a2a/{agent}/")
	tr.Under(t, tr.One(t, "run agent_workflow"), "process executions")
	inv := tr.One(t, "invoke_agent echo")
	tr.Under(t, inv, "run agent_workflow")
	if telemetrytest.Attr(inv, "gen_ai.agent.name") != "echo" {
		t.Fatalf("invoke_agent span %+v", inv)
	}
	tr.Under(t, tr.One(t, "POST"), "invoke_agent echo")
	rec.AssertNoSecret(t, both)
}

// A call its account may not make: the admit span carries the refusal's
// kind, and the call goes no further (no run span).
func TestTraceOfARefusedCall(t *testing.T) {
	rec := telemetrytest.Install(t)
	s := newServer(t)
	_, key := s.anyAccount("api")
	req, _ := http.NewRequest("POST", s.http.URL+"/api/v1/admin/agents", strings.NewReader(`{"name":"a","url":"http://127.0.0.1:9"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", telemetrytest.Traceparent)
	s.do(req).want(t, http.StatusForbidden)
	tr := rec.Await(t, telemetrytest.TraceID, "admit")
	admit := tr.One(t, "admit")
	if got := telemetrytest.Attr(admit, "error.type"); got != "permission_denied" {
		t.Fatalf("admit span's error.type %q, want permission_denied (%+v)", got, admit.Attributes)
	}
	if len(tr.Named("run a2e")) != 0 {
		t.Fatal("a refused call ran")
	}
}

// assertExemplars checks that each histogram's buckets in the OpenMetrics
// exposition carry the test trace as an exemplar (a sampled call's bucket
// leads to its trace).
func assertExemplars(t *testing.T, s *testServer, series ...string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.http.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	text := string(s.do(req).want(t, 200).raw)
	for _, name := range series {
		found := false
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, name+"{") && strings.Contains(line, `trace_id="`+telemetrytest.TraceID+`"`) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no bucket of %s has the trace %s as its exemplar", name, telemetrytest.TraceID)
		}
	}
}
