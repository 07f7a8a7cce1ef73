package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// metaToolName is the _meta key that carries a tool's sluice name when the
// host sees another one (mcpToolNames).
const metaToolName = "sluice/name"

// mcpTimeoutGrace (seconds) is added to the account's execution time to
// make a call's timeout.
const mcpTimeoutGrace = 1

// metaErrorCode is the _meta key of a failed call's E2A error code.
const metaErrorCode = "sluice/code"

// mcpToolOf is t as MCP describes a tool, under the name the host sees.
func mcpToolOf(t tools.Tool, name string) *mcp.Tool {
	e := t.Effects
	destructive, openWorld := e.Destructive && !e.ReadOnly, e.OpenWorld
	tool := &mcp.Tool{Name: name, Title: t.Title, Description: t.Description, InputSchema: inputSchema(t.Input),
		Annotations: &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: e.ReadOnly, IdempotentHint: t.Idempotent || e.ReadOnly,
			DestructiveHint: &destructive, OpenWorldHint: &openWorld}}
	if out := outputSchema(t); out != nil {
		tool.OutputSchema = out
	}
	if name != t.Name {
		tool.Meta = mcp.Meta{metaToolName: t.Name}
	}
	return tool
}

// freeForm is the input schema of a tool that takes any object.
var freeForm = json.RawMessage(`{"type":"object"}`)

// inputSchema is s when it is an object's schema, as MCP requires of an
// inputSchema; otherwise (none, or another type) any object.
func inputSchema(s json.RawMessage) json.RawMessage {
	if isObjectSchema(s) {
		return s
	}
	return freeForm
}

func isObjectSchema(s json.RawMessage) bool {
	var head struct {
		Type any `json:"type"`
	}
	return len(s) > 0 && json.Unmarshal(s, &head) == nil && head.Type == "object"
}

// outputSchema is the shape of t's structured result where it is known: a
// capability answers its run (run id, status, and its outputs, which its
// document declares), an MCP server's tool what that server declared.
// Other tools' results have no fixed shape.
func outputSchema(t tools.Tool) json.RawMessage {
	if !isObjectSchema(t.Output) {
		return nil
	}
	switch {
	case strings.HasPrefix(t.Name, "cap."):
		b, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
			"run_id": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"},
			"outputs": map[string]any{"anyOf": []any{t.Output, map[string]any{"type": "null"}}}}})
		if err != nil {
			return nil
		}
		return b
	case strings.HasPrefix(t.Name, "mcp."):
		return t.Output
	}
	return nil
}

// callTool is the handler of the sluice tool name: a tools/call becomes a
// tool.call through the dispatcher.
func (ms *mcpSession) callTool(name string, structured bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f, err := ms.call(ctx, req, name)
		if err != nil {
			return nil, err
		}
		return callResult(f, name, structured)
	}
}

// call dispatches req as tool.call of the sluice tool name and returns its
// final frame. The call streams when the host asked for progress; its
// timeout is the account's execution time.
func (ms *mcpSession) call(ctx context.Context, req *mcp.CallToolRequest, name string) (*e2a.Response, error) {
	params := map[string]any{"tool_name": name}
	if len(req.Params.Arguments) > 0 {
		var args any
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments are not JSON: " + err.Error()}
		}
		if args != nil {
			params["arguments"] = args
		}
	}
	if t := ms.auth.limits().MaxExecutionTimeMs; t > 0 {
		// The grace lets an execution end on its own budget (a TimeoutError
		// it reports) before the call's context ends it as cancelled; the
		// other tools are bounded by it.
		params["timeout"] = min(float64(t)/1000+mcpTimeoutGrace, maxToolTimeout)
	}
	progress := progressNotifier(ctx, req.Session, req.Params.GetProgressToken())
	if progress != nil {
		params["streaming"] = true
	}
	// A host's trace context in the request's _meta (MCP's place for it)
	// when its HTTP request carried none.
	ctx = telemetry.FromMeta(ctx, req.Params.Meta)
	return ms.dispatch(ctx, e2a.MethodToolCall, params, progress), nil
}

// callUnlisted answers a tools/call of a name the session has not listed
// (a host that never asked tools/list, or a tool that came since): it is
// called as the sluice name it is, which costs no listing; only when no
// tool has that name is the list loaded, in case the name is one the
// mapping gave (cap.<ns>_<id>).
func (ms *mcpSession) callUnlisted(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	f, err := ms.call(ctx, req, name)
	if err != nil {
		return nil, err
	}
	if unknownTool(f, name) && ms.syncTools(ctx) == nil {
		if t, ok := ms.tool(name); ok && t.name != name {
			return ms.callTool(t.name, t.structured)(ctx, req)
		}
	}
	return callResult(f, name, false)
}

// callResult renders tool.call's final frame for the tool name. A call that
// could not run is a failed tool result (isError) with its code and message,
// so the model reads why. What is no answer of the tool's is a JSON-RPC
// error: a refused authentication (fault's code), and a name no tool has,
// which MCP answers with Invalid params (-32602) — fault's not_found code,
// -32004, is the go-sdk's "server is closing", which its client reads as a
// closed connection. A result is its data as text, and as
// structuredContent when the data is an object.
func callResult(f *e2a.Response, name string, structured bool) (*mcp.CallToolResult, error) {
	if f.Kind == e2a.KindError {
		code, _ := f.Body["code"].(string)
		msg, _ := f.Body["message"].(string)
		switch {
		case code == fault.Unauthenticated.String():
			return nil, rpcError(f)
		case unknownTool(f, name):
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
		}
		return failedResult(code, msg, nil), nil
	}
	r, ok := f.Body["result"].(*tools.Result)
	if !ok {
		r = &tools.Result{}
		if err := remarshalAny(f.Body["result"], r); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool's result could not be read"}
		}
	}
	if !r.Success {
		msg := r.Error
		if msg == "" {
			msg = r.Summary // a cancelled execution has no error, but says how it ended
		}
		return failedResult(r.ErrorCode, msg, r.Data), nil
	}
	text, raw := renderData(r.Data)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	switch {
	case len(raw) > 0 && raw[0] == '{':
		res.StructuredContent = raw
	case structured:
		// The tool promised an object and gave something else (an answer cut
		// to its size limit): the host could not check it against the schema.
		return failedResult(fault.Upstream.Row().ToolCode, "the tool's result is not the object its output schema describes", nil), nil
	}
	if r.Truncated {
		res.Meta = mcp.Meta{"sluice/truncated": true}
	}
	return res, nil
}

// failedResult is a tool result with isError: its code and message first,
// then the data the failure carried (a validation report), if any.
func failedResult(code, msg string, data any) *mcp.CallToolResult {
	if msg == "" {
		msg = "the tool failed"
	}
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: code + ": " + msg}},
		Meta: mcp.Meta{metaErrorCode: code}}
	if data != nil {
		if text, _ := renderData(data); text != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: text})
		}
	}
	return res
}

// renderData is data as text (a string as it is, anything else as JSON)
// and its JSON encoding.
func renderData(data any) (string, json.RawMessage) {
	raw, err := json.Marshal(data)
	if err != nil {
		return "the result could not be encoded", nil
	}
	if s, ok := data.(string); ok {
		return s, raw
	}
	return string(raw), raw
}

// unknownTool says f is the dispatcher's answer that no tool is named name
// (tools.UnknownTool).
func unknownTool(f *e2a.Response, name string) bool {
	code, _ := f.Body["code"].(string)
	return f.Kind == e2a.KindError && code == fault.NotFound.String() && detailTool(f) == name
}

// detailTool is the tool an error frame's details name.
func detailTool(f *e2a.Response) string {
	var obj struct {
		Details map[string]any `json:"details"`
	}
	if o, ok := f.Body["details"].(fault.Object); ok {
		obj.Details = o.Details
	} else if remarshalAny(f.Body["details"], &obj) != nil {
		return ""
	}
	tool, _ := obj.Details["tool"].(string)
	return tool
}

// rpcError is an e2a.error frame as a JSON-RPC error: the code from fault's
// table, the frame's message, its E2A code as data. The two codes of the
// table the go-sdk's jsonrpc2 reserves for a closing connection (-32003,
// -32004: its client would report a closed connection) are sent as Invalid
// request.
func rpcError(f *e2a.Response) *jsonrpc.Error {
	code, _ := f.Body["code"].(string)
	msg, _ := f.Body["message"].(string)
	n := int64(fault.RowOf(code).JSONRPC)
	if n == -32003 || n == -32004 {
		n = jsonrpc.CodeInvalidRequest
	}
	data, _ := json.Marshal(map[string]string{"code": code})
	return &jsonrpc.Error{Code: n, Message: msg, Data: data}
}
