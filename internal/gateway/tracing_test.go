package gateway_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

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

	tr := rec.Trace(telemetrytest.TraceID)
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
	for _, step := range []string{"authorize", "rate_limit", "run a2e"} {
		tr.Under(t, tr.One(t, step), "workflow.execute")
	}
	tr.Under(t, call, "POST /api/v1/workflows/execute")
	fetch := tr.One(t, "operation ApiCall")
	tr.Under(t, fetch, "run a2e")
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
