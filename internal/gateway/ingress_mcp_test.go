package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/fault"
)

// The MCP drivers of TestIngress: the row's call as tools/call through the
// go-sdk's client, over Streamable HTTP and over the stdio server
// (Server.ServeMCP, here on an in-memory pipe).

func mcpHTTPDriver(e *ingressEnv, call callSpec, key string, underway func()) (exchange, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hungAfter)
	defer cancel()
	rt := &bearer{next: http.DefaultTransport, key: key}
	c := mcp.NewClient(&mcp.Implementation{Name: "ingress-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.s.http.URL + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		// Refused before any MCP message (the key): the HTTP status is the
		// answer.
		var tr transcript
		tr.line("> POST /mcp initialize, with the row's key")
		tr.line("< HTTP %d", rt.status.Load())
		return exchange{tr.b.String(), verdict{httpStatus: int(rt.status.Load()), final: "http"}}, nil
	}
	defer cs.Close()
	return mcpCall(ctx, cs, call, underway)
}

func mcpStdioDriver(e *ingressEnv, call callSpec, key string, underway func()) (exchange, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hungAfter)
	defer cancel()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- e.s.app.Server.ServeMCP(ctx, serverEnd, key) }()
	connected := make(chan error, 1)
	var cs *mcp.ClientSession
	connectCtx, stopConnect := context.WithCancel(ctx)
	defer stopConnect()
	go func() {
		var err error
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "ingress-test", Version: "1"}, nil).Connect(connectCtx, clientEnd, nil)
		connected <- err
	}()
	select {
	case err := <-served:
		// Refused before any MCP message: the command's error, and its
		// stdio closes.
		if conn, cerr := serverEnd.Connect(ctx); cerr == nil {
			_ = conn.Close()
		}
		stopConnect()
		<-connected
		var tr transcript
		tr.line("> sluice mcp --stdio, with the row's key")
		tr.line("< %v", err)
		return exchange{tr.b.String(), verdict{final: "refused", code: fault.From(err).Kind.String()}}, nil
	case err := <-connected:
		if err != nil {
			return exchange{}, err
		}
	}
	defer func() { _ = cs.Close(); cancel(); <-served }()
	return mcpCall(ctx, cs, call, underway)
}

// mcpCall makes the row's tool call (after its callsBefore) and reads the
// answer: a result (isError or not) or a JSON-RPC error.
func mcpCall(ctx context.Context, cs *mcp.ClientSession, call callSpec, underway func()) (exchange, error) {
	for i := range call.callsBefore {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args}); err != nil {
			return exchange{}, fmt.Errorf("call %d before the row's: %v", i, err)
		}
	}
	var tr transcript
	tr.line("> tools/call %s", call.tool)
	tr.json("> ", call.args)
	underway()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
	if err != nil {
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			return exchange{}, err
		}
		tr.json("< error ", map[string]any{"code": wire.Code, "message": wire.Message})
		return exchange{tr.b.String(), verdict{final: "jsonrpc error", code: fmt.Sprint(wire.Code)}}, nil
	}
	tr.json("< ", mcpResultView(res))
	v := verdict{final: "tools/call result", success: !res.IsError}
	if res.IsError {
		v.code, _ = res.Meta["sluice/code"].(string)
	}
	v.exec = executionOf(res.StructuredContent)
	if res.IsError && len(res.Content) > 1 {
		// A failed run's execution response follows its code and message.
		if t, ok := res.Content[1].(*mcp.TextContent); ok {
			var exec any
			if json.Unmarshal([]byte(t.Text), &exec) == nil {
				v.exec = executionOf(exec)
			}
		}
	}
	return exchange{tr.b.String(), v}, nil
}

// mcpResultView is res for a transcript: a text content that is JSON is
// shown decoded (as "text (JSON)"), so its volatile values are normalised.
func mcpResultView(res *mcp.CallToolResult) any {
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	var view map[string]any
	if json.Unmarshal(b, &view) != nil {
		return res
	}
	content, _ := view["content"].([]any)
	for _, c := range content {
		m, _ := c.(map[string]any)
		text, _ := m["text"].(string)
		var decoded any
		if text != "" && (text[0] == '{' || text[0] == '[') && json.Unmarshal([]byte(text), &decoded) == nil {
			delete(m, "text")
			m["text (JSON)"] = decoded
		}
	}
	return view
}
