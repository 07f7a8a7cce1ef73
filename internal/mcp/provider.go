package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/tools"
)

// ToolPrefix starts the session name of every MCP tool: mcp.<server>.<tool>.
// Server names hold no '.', so the first '.' after the prefix ends the
// server's name and the tool's own name may hold dots.
const ToolPrefix = "mcp."

// Provider serves the tools of the account's MCP servers to a tools.Box.
func (r *Registry) Provider() tools.Provider { return provider{r} }

type provider struct{ r *Registry }

func (provider) Handles(name string) bool { return strings.HasPrefix(name, ToolPrefix) }

// List returns the tools of every server the account registered and may
// use. A server that cannot be reached just now is left out (and logged)
// rather than failing the whole list; servers are asked in parallel.
func (pv provider) List(ctx context.Context, p *account.Principal) ([]tools.Tool, error) {
	regs, err := pv.r.o.Store.ListMCPServers(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	lists := make([][]tools.Tool, len(regs))
	var wg sync.WaitGroup
	for i, reg := range regs {
		if !p.Permissions.AllowsMCPServer(reg.Name) || pv.r.allowed(p, reg) != nil {
			continue
		}
		wg.Go(func() {
			c, err := pv.r.connect(ctx, reg, p.Permissions)
			if err != nil {
				return
			}
			infos, err := c.listTools(ctx)
			if err != nil {
				pv.r.o.Logger.Warn("mcp server did not list its tools", "server", reg.Name, "account", reg.AccountID, "error", err)
				return
			}
			for _, t := range infos {
				lists[i] = append(lists[i], sessionTool(reg.Name, t))
			}
		})
	}
	wg.Wait()
	var out []tools.Tool
	for _, l := range lists {
		out = append(out, l...)
	}
	return out, nil
}

func sessionTool(server string, t toolInfo) tools.Tool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	in := t.Input
	if len(in) == 0 || string(in) == "null" {
		in = nil
	}
	// Streaming: a streaming call passes on the server's progress
	// notifications as they come (progressRoutes).
	return tools.Tool{
		Name: ToolPrefix + server + "." + t.Name, Title: t.Title, Description: desc, Input: in, Output: t.Output,
		Streaming: true, Idempotent: t.Idempotent, Tags: []string{"mcp", "mcp:" + server}, Version: "",
		// The server's own hints say whether it changes anything; it is
		// another process, so every call leaves sluice.
		Effects: tools.Effects{ReadOnly: t.ReadOnly, Destructive: !t.ReadOnly, OpenWorld: true},
	}
}

// Call runs mcp.<server>.<tool> for p: the grant and the registration are
// checked first (tool_denied, unknown_tool), then the tool must be one the
// server lists.
func (pv provider) Call(ctx context.Context, p *account.Principal, name string, args map[string]any, onEvent func(tools.Event)) (*tools.Result, error) {
	start := time.Now()
	res, err := pv.call(ctx, p, name, args, onEvent)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The caller's deadline (a session call's timeout, the account's)
		// ended the call wherever it was: connecting, listing or calling.
		return nil, callTimeout(name, callerLimit(ctx, start)).WithCause(err)
	}
	return res, err
}

func (pv provider) call(ctx context.Context, p *account.Principal, name string, args map[string]any, onEvent func(tools.Event)) (*tools.Result, error) {
	server, tool, ok := strings.Cut(strings.TrimPrefix(name, ToolPrefix), ".")
	if !ok || tool == "" || store.CheckMCPServerName(server) != nil {
		return nil, tools.UnknownTool(name)
	}
	if !p.Permissions.AllowsMCPServer(server) {
		return nil, tools.Denied(name)
	}
	reg, err := pv.r.registration(ctx, p.ID, server)
	if err != nil {
		return nil, err
	}
	if reg == nil {
		return nil, tools.UnknownTool(name)
	}
	if err := pv.r.allowed(p, *reg); err != nil {
		return nil, tools.Denied(name)
	}
	c, err := pv.r.connect(ctx, *reg, p.Permissions)
	if err != nil {
		return nil, err
	}
	infos, err := c.listTools(ctx)
	if err != nil {
		return nil, err
	}
	known := false
	for _, t := range infos {
		known = known || t.Name == tool
	}
	if !known {
		return nil, tools.UnknownTool(name)
	}
	if c.tasks.required(tool) {
		msg := fmt.Sprintf("tool %q runs only as an MCP task (2025-11-25 tasks, execution.taskSupport \"required\"), which sluice's MCP client does not support", name)
		return &tools.Result{Success: false, Error: msg, ErrorCode: fault.Upstream.Row().ToolCode, Summary: "the tool needs MCP tasks"}, nil
	}
	callCtx, cancel := context.WithTimeout(ctx, pv.r.o.CallTimeout)
	defer cancel()
	res, err := c.call(callCtx, tool, args, onEvent)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case callCtx.Err() != nil:
			return nil, callTimeout(name, pv.r.o.CallTimeout)
		}
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			// Not an answer of the server: the connection broke.
			c.dead.Store(true)
			return nil, fault.New(fault.Upstream, "MCP server %q went away during the call", server).WithCause(err).Retry(0)
		}
		// The server refused the call (bad arguments, say): a tool that ran and
		// failed, in the server's words.
		return &tools.Result{Success: false, Error: boundedText(wire.Message, 4096), ErrorCode: fault.Upstream.Row().ToolCode,
			Summary: "the MCP server refused the call"}, nil
	}
	return toResult(res, pv.r.o.MaxResultBytes), nil
}

// registration finds the account's registration of server (nil if none).
func (r *Registry) registration(ctx context.Context, accountID, server string) (*store.MCPServer, error) {
	regs, err := r.o.Store.ListMCPServers(ctx, accountID)
	if err != nil {
		return nil, err
	}
	for i := range regs {
		if regs[i].Name == server {
			return &regs[i], nil
		}
	}
	return nil, nil
}

// toResult turns an MCP answer into a session tool result. Data is the
// structured content when the tool gave one, else its text when it answered
// one text, else its content list as MCP encodes it. Data over maxBytes is
// cut (as text) and marked truncated.
func toResult(res *sdk.CallToolResult, maxBytes int64) *tools.Result {
	text := contentText(res.Content)
	if res.IsError {
		msg := text
		if msg == "" {
			msg = "the tool reported an error"
		}
		return &tools.Result{Success: false, Error: boundedText(msg, 4096), ErrorCode: fault.Upstream.Row().ToolCode, Summary: boundedText(msg, 200)}
	}
	out := &tools.Result{Success: true, Summary: boundedText(text, 200)}
	switch {
	case res.StructuredContent != nil:
		out.Data = res.StructuredContent
	case len(res.Content) == 1 && isText(res.Content[0]):
		out.Data = text
	default:
		content := res.Content
		if content == nil {
			content = []sdk.Content{}
		}
		out.Data = content
	}
	raw, err := json.Marshal(out.Data)
	if err != nil {
		return &tools.Result{Success: false, Error: "the tool's answer could not be encoded", ErrorCode: fault.Upstream.Row().ToolCode}
	}
	if int64(len(raw)) > maxBytes {
		out.Data = boundedText(string(raw), int(maxBytes))
		out.Truncated = true
	}
	return out
}

func isText(c sdk.Content) bool {
	_, ok := c.(*sdk.TextContent)
	return ok
}

// contentText joins the text parts of an answer.
func contentText(content []sdk.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// boundedText cuts s to at most n bytes on a rune boundary, marking the cut.
func boundedText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
