package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
	"github.com/sluicehq/sluice/internal/tools"
)

var loopback = egress.Policy{AllowPrivate: []string{"127.0.0.1"}}

// serve serves h and registers it for alice as "web"; the registry is
// closed before the server (its connection holds a stream open).
func serve(t *testing.T, r *mcp.Registry, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(func() { r.Close(); hs.Close() })
	if _, err := r.Register(ctx, principal("alice", "*"), mcp.Registration{Name: "web", URL: hs.URL}); err != nil {
		t.Fatal(err)
	}
	return hs.URL
}

func handlerOf(srv *sdk.Server, o *sdk.StreamableHTTPOptions) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, o)
}

// MCP tools are listed as streaming: a streaming call passes on their
// progress.
func TestMCPToolsStream(t *testing.T) {
	r := newRegistry(t, openStore(t), mcp.Options{})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	list, err := tools.New(r.Provider()).List(ctx, alice, tools.ListOptions{})
	if err != nil || len(list) == 0 {
		t.Fatalf("list: %v %v", list, err)
	}
	for _, tl := range list {
		if !tl.Streaming {
			t.Errorf("%s is listed streaming: false", tl.Name)
		}
	}
}

// The client advertises no capability it does not serve (no roots, no
// sampling, no elicitation: its initialize request, as sent, names none),
// and a server's elicitation request is refused at once, not left to time
// out.
func TestClientAdvertisesOnlyWhatItDoes(t *testing.T) {
	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback, CallTimeout: 20 * time.Second})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	h := handlerOf(mcptest.NewServer(), nil)
	var initialize []byte
	serve(t, r, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			body := new(bytes.Buffer)
			_, _ = body.ReadFrom(req.Body)
			req.Body = readCloser{bytes.NewReader(body.Bytes())}
			if bytes.Contains(body.Bytes(), []byte(`"method":"initialize"`)) {
				initialize = body.Bytes()
			}
		}
		h.ServeHTTP(w, req)
	}))
	var sent struct {
		Params struct {
			Capabilities map[string]any `json:"capabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal(initialize, &sent); err != nil {
		t.Fatalf("initialize %q: %v", initialize, err)
	}
	for _, c := range []string{"roots", "sampling", "elicitation"} {
		if _, ok := sent.Params.Capabilities[c]; ok {
			t.Errorf("the client advertises %s: %s", c, initialize)
		}
	}
	for _, server := range []string{"local", "web"} {
		res, err := r.Provider().Call(ctx, alice, "mcp."+server+".ask", nil, nil)
		if err != nil || res.Success || !strings.Contains(res.Error, "elicitation") {
			t.Fatalf("%s ask: %+v %v, want a failed call saying elicitation is not supported", server, res, err)
		}
	}
}

// A server's tools/list_changed (on the standalone stream) makes the next
// listing ask again, well within the tool list's reuse time.
func TestToolListChanged(t *testing.T) {
	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback})
	srv := mcptest.NewServer()
	serve(t, r, handlerOf(srv, nil))
	alice := principal("alice", "*")
	if list, err := r.Provider().List(ctx, alice); err != nil || strings.Contains(toolNames(list), "mcp.web.late") {
		t.Fatalf("list: %s %v", toolNames(list), err)
	}
	srv.AddTool(&sdk.Tool{Name: "late", Description: "Added later", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late"}}}, nil
		})
	deadline := time.Now().Add(10 * time.Second) // under the 30 s reuse of a list
	for {
		list, _ := r.Provider().List(ctx, alice)
		if strings.Contains(toolNames(list), "mcp.web.late") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a tool the server added is not listed: its list_changed was not heard")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A call's event stream that drops before its answer is resumed (GET with
// Last-Event-ID) and the answer arrives, instead of the connection giving up.
func TestDroppedStreamIsResumed(t *testing.T) {
	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback})
	h := handlerOf(mcptest.NewServer(), &sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)})
	dropped := make(chan struct{}, 1)
	serve(t, r, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			body := new(bytes.Buffer)
			_, _ = body.ReadFrom(req.Body)
			req.Body = readCloser{bytes.NewReader(body.Bytes())}
			if strings.Contains(body.String(), `"name":"slow"`) {
				// Cut the call's stream shortly after it starts.
				cctx, cancel := context.WithCancel(req.Context())
				time.AfterFunc(100*time.Millisecond, cancel)
				req = req.WithContext(cctx)
				select {
				case dropped <- struct{}{}:
				default:
				}
			}
		}
		h.ServeHTTP(w, req)
	}))
	res, err := r.Provider().Call(ctx, principal("alice", "*"), "mcp.web.slow", map[string]any{"ms": 600}, nil)
	if len(dropped) == 0 {
		t.Fatal("the stream was not cut")
	}
	if err != nil || !res.Success || res.Data != "done" {
		t.Fatalf("a call whose stream dropped: %+v %v", res, err)
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// A tool that runs only as an MCP task (2025-11-25) fails at once with an
// error naming the feature.
func TestTaskOnlyToolRefused(t *testing.T) {
	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback})
	h := handlerOf(mcptest.NewServer(), &sdk.StreamableHTTPOptions{JSONResponse: true})
	serve(t, r, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			h.ServeHTTP(w, req)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := bytes.Replace(rec.Body.Bytes(), []byte(`"name":"echo"`), []byte(`"execution":{"taskSupport":"required"},"name":"echo"`), 1)
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	res, err := r.Provider().Call(ctx, principal("alice", "*"), "mcp.web.echo", map[string]any{"text": "x"}, nil)
	if err != nil || res.Success || !strings.Contains(res.Error, "MCP task") || !strings.Contains(res.Error, "taskSupport") {
		t.Fatalf("a task-only tool: %+v %v", res, err)
	}
	if res, err := r.Provider().Call(ctx, principal("alice", "*"), "mcp.web.add", map[string]any{"a": 1, "b": 2}, nil); err != nil || !res.Success {
		t.Fatalf("another tool: %+v %v", res, err)
	}
}
