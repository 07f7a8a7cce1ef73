package gateway

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// searchToolName is the session's own tool: it answers from the account's
// tools (tool.list with a query: discovery's ranking), so a host with a small
// context can load a catalogue of hundreds of tools on demand.
const searchToolName = "sluice.search"

// Bounds of a search's answer.
const (
	searchDefaultLimit = 10
	searchMaxLimit     = 50
)

func searchTool() *mcp.Tool {
	return &mcp.Tool{Name: searchToolName, Title: "Search sluice's tools",
		Description: "Find the tools that fit a task among every tool this account may use: each match's name " +
			"(call it by that name), title, description, input schema and annotations, most relevant first.",
		InputSchema: json.RawMessage(`{"type":"object","required":["query"],"properties":{` +
			`"query":{"type":"string","description":"what the tool should do, in words"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"at most this many tools (default 10)"}},` +
			`"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["tools"],"properties":{"tools":{"type":"array","items":{"type":"object"}}}}`),
		Annotations:  &mcp.ToolAnnotations{Title: "Search sluice's tools", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: new(bool), OpenWorldHint: new(bool)},
	}
}

// search answers sluice.search: tool.list with the query, each match under
// the name this session gives it.
func (ms *mcpSession) search(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return failedResult("invalid", "arguments: "+err.Error(), nil), nil
		}
	}
	if in.Query == "" {
		return failedResult("invalid", "arguments.query is required: say what the tool should do", nil), nil
	}
	limit := in.Limit
	if limit <= 0 {
		limit = searchDefaultLimit
	}
	limit = min(limit, searchMaxLimit)
	f := ms.dispatch(ctx, e2a.MethodToolList, map[string]any{"query": in.Query}, nil)
	if f.Kind == e2a.KindError {
		return callResult(f, searchToolName, false)
	}
	found, err := toolsOfFrame(f.Body["result"])
	if err != nil {
		return nil, err
	}
	if len(found) > limit {
		found = found[:limit]
	}
	out := make([]*mcp.Tool, 0, len(found))
	for _, t := range found {
		name, ok := ms.mcpName(t.Name)
		if !ok {
			// A tool the session has not listed yet: the names are given over
			// the whole list, so it is loaded once.
			if err := ms.syncTools(ctx); err != nil {
				return nil, err
			}
			if name, ok = ms.mcpName(t.Name); !ok {
				continue
			}
		}
		out = append(out, mcpToolOf(t, name))
	}
	b, err := json.Marshal(map[string]any{"tools": out})
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the search's answer could not be encoded"}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}
