package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// bearer sends an API key on every request of an MCP client, and keeps the
// last HTTP status it saw.
type bearer struct {
	key    string
	next   http.RoundTripper
	status atomic.Int64
}

func withKey(key string) *http.Client {
	return &http.Client{Transport: &bearer{key: key, next: http.DefaultTransport}}
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	resp, err := b.next.RoundTrip(r)
	if err == nil {
		b.status.Store(int64(resp.StatusCode))
	}
	return resp, err
}

// mcpConnect opens an MCP session on s's /mcp with the go-sdk's client.
func mcpConnect(t *testing.T, s *testServer, key string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "sluice-test", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: s.http.URL + "/mcp", MaxRetries: -1,
		HTTPClient: withKey(key)}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// mcpStdio opens an MCP session served as `sluice mcp --stdio` serves it
// (Server.ServeMCP), over an in-memory pipe.
func mcpStdio(t *testing.T, s *testServer, key string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.app.Server.ServeMCP(ctx, serverEnd, key) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "sluice-test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), clientEnd, nil)
	if err != nil {
		cancel()
		t.Fatal(err, <-done)
	}
	t.Cleanup(func() { _ = cs.Close(); cancel(); <-done })
	return cs
}

// transports are the two ways a host reaches sluice's MCP server.
var transports = []struct {
	name    string
	connect func(*testing.T, *testServer, string, *mcp.ClientOptions) *mcp.ClientSession
}{{"http", mcpConnect}, {"stdio", mcpStdio}}

func listAll(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestMCPToolsAreTheAccountsOnBothTransports(t *testing.T) {
	s := newServer(t, withMCP(gateway.MCPConfig{PageSize: 3}))
	_, key := s.account(map[string]any{"operations": []string{"FilterData", "TransformData", "ApiCall", "StoreData"}, "hosts": []string{"*"}}, nil)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, s, key, nil)
			first, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.Tools) != 3 || first.NextCursor == "" {
				t.Fatalf("the first page: %d tools, cursor %q", len(first.Tools), first.NextCursor)
			}
			tools := listAll(t, cs)
			for _, name := range []string{"op.FilterData", "op.TransformData", "op.ApiCall", "op.StoreData", "workflow.execute", "workflow.validate", "sluice.search"} {
				if tools[name] == nil {
					t.Fatalf("%s is not listed: %v", name, keys(tools))
				}
			}
			if tools["op.LoadData"] != nil || tools["op.InvokeAgent"] != nil {
				t.Fatal("a tool the account may not use is listed")
			}
			hints := func(name string) string {
				a := tools[name].Annotations
				return fmt.Sprintf("ro=%v idem=%v destr=%v open=%v", a.ReadOnlyHint, a.IdempotentHint, *a.DestructiveHint, *a.OpenWorldHint)
			}
			for name, want := range map[string]string{
				"op.FilterData":     "ro=true idem=true destr=false open=false",
				"op.ApiCall":        "ro=false idem=false destr=true open=true",
				"op.StoreData":      "ro=false idem=false destr=true open=false",
				"workflow.validate": "ro=true idem=true destr=false open=false",
				"workflow.execute":  "ro=false idem=false destr=true open=true",
				"sluice.search":     "ro=true idem=true destr=false open=false",
			} {
				if got := hints(name); got != want {
					t.Errorf("%s: %s, want %s", name, got, want)
				}
			}
			for name, tool := range tools {
				var schema map[string]any
				b, _ := json.Marshal(tool.InputSchema)
				if json.Unmarshal(b, &schema) != nil || schema["type"] != "object" {
					t.Errorf("%s: inputSchema %s", name, b)
				}
			}
			if tools["op.FilterData"].Title != "FilterData" || tools["op.FilterData"].Description == "" {
				t.Errorf("op.FilterData: title %q description %q", tools["op.FilterData"].Title, tools["op.FilterData"].Description)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestMCPCallsGoThroughTheDispatcher(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			cs := tr.connect(t, s, key, nil)
			// A data operation: its output (an array) as text.
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "op.FilterData", Arguments: map[string]any{
				"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1}},
				"input": map[string]any{"xs": []any{map[string]any{"v": 0}, map[string]any{"v": 2}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if r.IsError || strings.TrimSpace(text(r)) != `[{"v":2}]` || r.StructuredContent != nil {
				t.Fatalf("FilterData: isError %v, %q, structured %v", r.IsError, text(r), r.StructuredContent)
			}
			// A workflow: its answer is an object, so structured too.
			doc := jsonl(`{"type":"operationUpdate","operationId":"t","operation":{"TransformData":{"inputPath":"/input/xs","transform":"sort","config":{"field":"v","order":"desc"},"outputPath":"/workflow/sorted"}}}`,
				`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["t"]}`)
			r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow.execute", Arguments: map[string]any{"workflow": doc,
				"input": map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}}}})
			if err != nil {
				t.Fatal(err)
			}
			sc, _ := r.StructuredContent.(map[string]any)
			if r.IsError || sc == nil || sc["status"] != "success" {
				t.Fatalf("workflow.execute: isError %v, structured %v, text %s", r.IsError, r.StructuredContent, text(r))
			}
			// A tool that ran and failed: isError with the code first.
			r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "op.FilterData", Arguments: map[string]any{"inputPath": "/input/missing", "conditions": []any{}}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.IsError || !strings.Contains(text(r), ": ") || r.Meta["sluice/code"] == "" {
				t.Fatalf("a failed tool: isError %v, %q, meta %v", r.IsError, text(r), r.Meta)
			}
			// Arguments the tool refuses: isError, with the refusal's code.
			r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow.validate", Arguments: map[string]any{"nope": 1}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.IsError || !strings.HasPrefix(text(r), "invalid: ") {
				t.Fatalf("bad arguments: isError %v, %q", r.IsError, text(r))
			}
			// A name no tool has: a protocol error.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "op.Teleport"}); err == nil {
				t.Fatal("an unknown tool was called")
			}
		})
	}
	// Each call is one audited tool.call, like a session's.
	waitFor(t, 10*time.Second, "tool.call in the audit", func() bool {
		return strings.Contains(string(s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).raw), `"tool.call"`)
	})
}

func TestMCPProgressAndCancellation(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var progress []*mcp.ProgressNotificationParams
			cs := tr.connect(t, s, key, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				progress = append(progress, r.Params)
				mu.Unlock()
			}})
			doc := jsonl(`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":1}}}`,
				`{"type":"operationUpdate","operationId":"b","operation":{"Wait":{"duration":1}}}`,
				`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["a","b"]}`)
			params := &mcp.CallToolParams{Name: "workflow.execute", Arguments: map[string]any{"workflow": doc}}
			params.SetProgressToken("p-1")
			r, err := cs.CallTool(context.Background(), params)
			if err != nil || r.IsError {
				t.Fatalf("%v %v", err, r)
			}
			waitFor(t, 5*time.Second, "progress notifications", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(progress) >= 2
			})
			mu.Lock()
			for i, p := range progress {
				if p.ProgressToken != "p-1" || p.Progress != float64(i+1) || p.Message == "" {
					t.Errorf("progress %d: %+v", i, p)
				}
			}
			mu.Unlock()

			// Cancelled by the host: the execution stops.
			id := uniqueID()
			long := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":30000}}}`,
				`{"type":"beginExecution","executionId":"`+id+`","operationOrder":["w"]}`)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow.execute", Arguments: map[string]any{"workflow": long}})
				errc <- err
			}()
			var execID string
			waitFor(t, 10*time.Second, "the long execution to start", func() bool {
				l := s.call("GET", "/api/v1/executions?limit=100", key, nil)
				for _, e := range asList(l.get("executions")) {
					if e["status"] == "running" {
						execID, _ = e["execution_id"].(string)
					}
				}
				return execID != ""
			})
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled call answered %v", err)
			}
			waitFor(t, 10*time.Second, "the execution to be cancelled", func() bool {
				return s.call("GET", "/api/v1/executions/"+execID, key, nil).str("status") == "cancelled"
			})
		})
	}
}

func asList(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func TestMCPSearch(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, s, key, nil)
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sluice.search", Arguments: map[string]any{"query": "filter records by a condition", "limit": 3}})
			if err != nil || r.IsError {
				t.Fatalf("%v %s", err, text(r))
			}
			var got struct {
				Tools []mcp.Tool `json:"tools"`
			}
			b, _ := json.Marshal(r.StructuredContent)
			if err := json.Unmarshal(b, &got); err != nil || len(got.Tools) == 0 || len(got.Tools) > 3 {
				t.Fatalf("search answer: %s", b)
			}
			if got.Tools[0].Name != "op.FilterData" || got.Tools[0].InputSchema == nil {
				t.Fatalf("the best match: %s", b)
			}
			// A tool found by search is called by that name, listed or not.
			r, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: got.Tools[0].Name, Arguments: map[string]any{
				"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1}},
				"input": map[string]any{"xs": []any{}}}})
			if err != nil || r.IsError {
				t.Fatalf("calling the match: %v %s", err, text(r))
			}
		})
	}
}

// A missing or wrong key is refused with 401 and WWW-Authenticate before
// the body is read; no session is made.
func TestMCPRefusesWithoutAValidKey(t *testing.T) {
	s := newServer(t)
	h := s.app.Server.Handler()
	for name, auth := range map[string]string{"none": "", "wrong": "Bearer sk-not-a-key", "basic": "Basic eDp5"} {
		body := &watchedBody{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)}
		req := httptest.NewRequest("POST", "/mcp", body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("%s: %d %v %s", name, w.Code, w.Header(), w.Body)
		}
		var rpc struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &rpc); err != nil || rpc.Error.Code != -32001 {
			t.Fatalf("%s: body %s", name, w.Body)
		}
		if body.read.Load() {
			t.Fatalf("%s: the body was read before the key was checked", name)
		}
	}
	if n := gateway.MCPSessions(s.app.Server); n != 0 {
		t.Fatalf("%d sessions after refusals", n)
	}
	// The go-sdk's client is refused at connect.
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	_, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.http.URL + "/mcp", MaxRetries: -1}, nil)
	if err == nil {
		t.Fatal("a client without a key connected")
	}
}

type watchedBody struct {
	r    *strings.Reader
	read atomic.Bool
}

func (b *watchedBody) Read(p []byte) (int, error) { b.read.Store(true); return b.r.Read(p) }

// Origins other than the server's own are refused; a session answers only
// the key that opened it.
func TestMCPOriginAndSessionOwner(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	_, other := s.anyAccount()
	req, _ := http.NewRequest("POST", s.http.URL+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Origin", "https://evil.example")
	if r := s.do(req); r.status != http.StatusForbidden {
		t.Fatalf("a foreign origin: %d %s", r.status, r.raw)
	}
	cs := mcpConnect(t, s, key, nil)
	req, _ = http.NewRequest("POST", s.http.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+other)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	if r := s.do(req); r.status != http.StatusNotFound {
		t.Fatalf("another account's key on the session: %d %s", r.status, r.raw)
	}
}

func TestMCPSessionsAreBounded(t *testing.T) {
	s := newServer(t, withMCP(gateway.MCPConfig{MaxSessionsPerAccount: 2}))
	_, key := s.anyAccount()
	mcpConnect(t, s, key, nil)
	mcpConnect(t, s, key, nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	_, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.http.URL + "/mcp", MaxRetries: -1,
		HTTPClient: withKey(key)}, nil)
	if err == nil {
		t.Fatal("a third session opened over the bound of 2")
	}
	_, other := s.anyAccount()
	mcpConnect(t, s, other, nil) // the bound is per account
}

func TestMCPSessionEndsWhenItsKeyIsRevoked(t *testing.T) {
	s := newServer(t)
	gateway.SetConnRecheck(s.app.Server, 50*time.Millisecond)
	id, key := s.anyAccount()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, s, key, nil)
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if tr.name == "stdio" {
				keys := s.call("GET", "/api/v1/admin/accounts/"+id+"/keys", s.admin, nil).want(t, http.StatusOK)
				keyID := keys.get("keys").([]any)[0].(map[string]any)["key_id"].(string)
				s.call("DELETE", "/api/v1/admin/accounts/"+id+"/keys/"+keyID, s.admin, nil).want(t, http.StatusOK)
			} else {
				// The HTTP session's key is a second one, revoked while the
				// stdio run's key still works.
				k2 := s.call("POST", "/api/v1/admin/accounts/"+id+"/keys", s.admin, map[string]any{}).want(t, http.StatusCreated)
				cs2 := mcpConnect(t, s, k2.str("api_key"), nil)
				if _, err := cs2.ListTools(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				s.call("DELETE", "/api/v1/admin/accounts/"+id+"/keys/"+k2.str("key_id"), s.admin, nil).want(t, http.StatusOK)
				cs = cs2
			}
			done := make(chan struct{})
			go func() { _ = cs.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the session outlived its key")
			}
		})
	}
}

// A credential's value never reaches a tool result, whichever way the call
// ends.
func TestMCPResultsHoldNoSecret(t *testing.T) {
	const secret = "tok-mcp-5e4d3c2b1a09"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(500)
		}
		fmt.Fprintf(w, `{"seen":%q}`, r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	s := newServer(t)
	s.call("PUT", "/api/v1/admin/credentials/api", s.admin, map[string]any{"type": "bearer-token", "value": secret}).want(t, 200)
	_, key := s.anyAccount("api")
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, s, key, nil)
			var all strings.Builder
			for _, path := range []string{"/ok", "/fail"} {
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "op.ApiCall", Arguments: map[string]any{
					"method": "GET", "url": echo.URL + path, "retry": map[string]any{"maxRetries": 0},
					"headers": map[string]any{"Authorization": map[string]any{"credentialRef": map[string]any{"id": "api"}}}}})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(r)
				all.Write(b)
			}
			if !strings.Contains(all.String(), "Bearer") {
				t.Fatalf("no call reached the upstream with the credential: %s", all.String())
			}
			if strings.Contains(all.String(), secret) || strings.Contains(all.String(), secret[len(secret)-10:]) {
				t.Fatalf("a result holds the secret: %s", all.String())
			}
		})
	}
}

// A capability is cap.<ns>_<id> to a host (the sluice name in _meta), with
// an output schema its structured results meet, waiting or done.
func TestMCPCapabilityTools(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap)}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"capability_level": "basic"}, nil)
	cs := mcpConnect(t, s, key, nil)
	tools := listAll(t, cs)
	capTool := tools["cap.finance_Approve"]
	if capTool == nil || capTool.Meta["sluice/name"] != "cap.finance/Approve" || capTool.OutputSchema == nil || tools["capability.decide"] == nil {
		t.Fatalf("tools: %v", keys(tools))
	}
	// The go-sdk's client checks structuredContent against the output schema.
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "cap.finance_Approve", Arguments: map[string]any{"amount": 9}})
	if err != nil || r.IsError {
		t.Fatalf("%v %s", err, text(r))
	}
	sc, _ := r.StructuredContent.(map[string]any)
	if sc["status"] != "waiting" {
		t.Fatalf("run: %v", r.StructuredContent)
	}
	r, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "capability.decide", Arguments: map[string]any{
		"run_id": sc["run_id"], "answer": map[string]any{"verdict": "no"}}})
	if err != nil || r.IsError || !strings.Contains(text(r), `"verdict":"refused"`) {
		t.Fatalf("decide: %v %s", err, text(r))
	}
}

// The account's executions and the published capabilities are resources,
// read through the dispatcher: another account's execution is not found.
func TestMCPResources(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap)}).want(t, http.StatusCreated)
	_, key := s.anyAccount()
	_, other := s.anyAccount()
	doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
	execID := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, http.StatusOK).str("execution_id")
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			cs := tr.connect(t, s, key, nil)
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			uris := map[string]bool{}
			for _, r := range list.Resources {
				uris[r.URI] = true
			}
			if !uris["sluice://executions/"+execID] || !uris["sluice://capabilities/finance/Approve@1.2.0"] {
				t.Fatalf("resources: %v", uris)
			}
			templates, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(templates.ResourceTemplates) != 2 {
				t.Fatalf("templates: %v %v", templates, err)
			}
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sluice://executions/" + execID})
			if err != nil || !strings.Contains(r.Contents[0].Text, `"status":"success"`) {
				t.Fatalf("the execution: %v %v", r, err)
			}
			r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sluice://capabilities/finance/Approve@%5E1"})
			if err != nil || !strings.Contains(r.Contents[0].Text, "id: Approve") || r.Contents[0].URI != "sluice://capabilities/finance/Approve@1.2.0" {
				t.Fatalf("the capability: %+v %v", r, err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sluice://executions/exec-000000000000000000000000"}); err == nil {
				t.Fatal("a missing execution was read")
			}
			theirs := tr.connect(t, s, other, nil)
			if _, err := theirs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sluice://executions/" + execID}); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("another account read the execution: %v", err)
			}
		})
	}
}

// A grant given while a session is open reaches its host as
// notifications/tools/list_changed, and its next list has the tool.
func TestMCPToolListChanged(t *testing.T) {
	s := newServer(t, withMCP(gateway.MCPConfig{ListChangedEvery: 50 * time.Millisecond}))
	gateway.SetConnRecheck(s.app.Server, 10*time.Millisecond)
	id, key := s.account(map[string]any{"operations": []string{"FilterData"}}, nil)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"permissions": map[string]any{"operations": []string{"FilterData"}}}).want(t, http.StatusOK)
			changed := make(chan struct{}, 16)
			cs := tr.connect(t, s, key, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				changed <- struct{}{}
			}})
			if tools := listAll(t, cs); tools["op.TransformData"] != nil || tools["op.FilterData"] == nil {
				t.Fatalf("before: %v", keys(tools))
			}
			s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"permissions": map[string]any{"operations": []string{"FilterData", "TransformData"}}}).want(t, http.StatusOK)
			select {
			case <-changed:
			case <-time.After(15 * time.Second):
				t.Fatal("no notifications/tools/list_changed")
			}
			if tools := listAll(t, cs); tools["op.TransformData"] == nil {
				t.Fatalf("after: %v", keys(tools))
			}
		})
	}
}

// A subscribed execution that is still running sends
// notifications/resources/updated as it goes.
func TestMCPSubscribeToAnExecution(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			updates := make(chan string, 64)
			cs := tr.connect(t, s, key, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				updates <- r.Params.URI
			}})
			doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":300}}}`,
				`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
			id := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "async": true}).want(t, http.StatusAccepted).str("execution_id")
			uri := "sluice://executions/" + id
			if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-updates:
				if got != uri {
					t.Fatalf("an update of %s", got)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("no notifications/resources/updated")
			}
			// Over stdio the go-sdk negotiates 2026-07-28, whose client
			// subscribes through subscriptions/listen and does not wait for a
			// refusal: only resources/subscribe answers one.
			if tr.name == "http" {
				if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "sluice://executions/exec-000000000000000000000000"}); err == nil {
					t.Fatal("subscribed to a missing execution")
				}
			}
		})
	}
}

// The session's stream outlives the server's write timeout: a change
// after it still reaches the host.
func TestMCPStreamOutlivesTheWriteTimeout(t *testing.T) {
	s := newServer(t, withMCP(gateway.MCPConfig{ListChangedEvery: 50 * time.Millisecond}), func(c *config.Config) {
		c.Server.WriteTimeout, c.Limits.MaxExecutionTime = time.Second, 500*time.Millisecond
	})
	gateway.SetConnRecheck(s.app.Server, 10*time.Millisecond)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.app.Server.HTTPServer(ln.Addr().String())
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	id, key := s.account(map[string]any{"operations": []string{"FilterData"}}, nil)
	changed := make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxRetries: -1,
		HTTPClient: withKey(key)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listAll(t, cs)
	time.Sleep(1500 * time.Millisecond) // past the write timeout
	s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"permissions": map[string]any{"operations": []string{"FilterData", "TransformData"}}}).want(t, http.StatusOK)
	select {
	case <-changed:
	case <-time.After(15 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the write timeout")
	}
}
