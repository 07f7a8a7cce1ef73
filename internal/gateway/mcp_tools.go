package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// metaToolName is the _meta key that carries a tool's sluice name when the
// host sees another one (mcpToolNames).
const metaToolName = "sluice/name"

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
// tool.call through the dispatcher. The call streams when the host asked
// for progress; its timeout is the account's execution time.
func (ms *mcpSession) callTool(name string, structured bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
			params["timeout"] = min(float64(t)/1000, maxToolTimeout)
		}
		progress := progressNotifier(ctx, req.Session, req.Params.GetProgressToken())
		if progress != nil {
			params["streaming"] = true
		}
		return callResult(ms.dispatch(ctx, e2a.MethodToolCall, params, progress), structured)
	}
}

// callResult renders tool.call's final frame. A call that could not run is
// a failed tool result (isError) with its code and message, so the model
// reads why; only a refused authentication is a JSON-RPC error, as it is no
// answer of the tool's. A result is its data as text, and as
// structuredContent when the data is an object.
func callResult(f *e2a.Response, structured bool) (*mcp.CallToolResult, error) {
	if f.Kind == e2a.KindError {
		code, _ := f.Body["code"].(string)
		if code == fault.Unauthenticated.String() {
			return nil, rpcError(f)
		}
		msg, _ := f.Body["message"].(string)
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
		return failedResult(r.ErrorCode, r.Error, r.Data), nil
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

// rpcError is an e2a.error frame as a JSON-RPC error: the code from fault's
// table, the frame's message.
func rpcError(f *e2a.Response) *jsonrpc.Error {
	code, _ := f.Body["code"].(string)
	msg, _ := f.Body["message"].(string)
	return &jsonrpc.Error{Code: int64(fault.RowOf(code).JSONRPC), Message: msg}
}
