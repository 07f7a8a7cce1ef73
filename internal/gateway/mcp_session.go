package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// mcpSession is one MCP session (one Streamable HTTP session, or the one
// session of `sluice mcp --stdio`): an MCP server of its own whose tools are
// the account's, as tool.list gives them, each call going through the
// dispatcher as tool.call under the session's authentication.
type mcpSession struct {
	id     string
	srv    *Server
	auth   *ConnAuth
	keyID  string // the key the session was opened with; its requests must present it
	server *mcp.Server

	syncMu  sync.Mutex // one sync of the tool set at a time
	mu      sync.Mutex
	tools   map[string]mcpTool            // by the name the host sees
	ss      *mcp.ServerSession            // once connected
	follows map[string]context.CancelFunc // subscribed executions, by URI (mcp_subscribe.go)
}

// mcpTool is one tool of a session: its sluice name and a digest of what
// the host was told of it, to tell a changed tool from the same one.
type mcpTool struct {
	name       string
	structured bool // it has an output schema: its results must be objects
	digest     [sha256.Size]byte
}

// newMCPSession makes the session's MCP server; its tools are loaded at the
// first tools/list (or at a call of a tool it has not listed yet).
func (s *Server) newMCPSession(id string, auth *ConnAuth) *mcpSession {
	cfg := s.cfg.MCP.withDefaults()
	ms := &mcpSession{id: id, srv: s, auth: auth, keyID: auth.KeyID(), tools: map[string]mcpTool{}}
	ms.server = mcp.NewServer(&mcp.Implementation{Name: "sluice", Title: "sluice", Version: cfg.ServerVersion}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		// list_changed: the sessions' watch (mcpSessions.watch) finds an
		// account's tools changed and applies them; the go-sdk tells the host.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{}},
		PageSize:     cfg.PageSize,
		GetSessionID: func() string { return id },
		Logger:       s.log.With("component", "mcp", "session", id),
		// A list is the account's, and grants change: no one else may keep
		// it, and it is stale at once.
		SetCacheable:       func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope, c.TTLMs = "private", 0 },
		SubscribeHandler:   ms.subscribe,
		UnsubscribeHandler: ms.unsubscribe,
	})
	ms.server.AddReceivingMiddleware(ms.loadTools)
	ms.server.AddTool(searchTool(), ms.search)
	ms.addResources()
	return ms
}

const mcpInstructions = "sluice runs whitelisted work under your account's grants: data operations (op.*), " +
	"A2E workflows (workflow.*), capabilities (cap.*), agents (agent.*) and the tools of MCP servers registered " +
	"with sluice (mcp.*). With many tools, call sluice.search with what you need to find the few that fit."

// loadTools brings the session's tool set up to date before a tools/list
// (its first page), and answers a call of a name it has not listed
// (callUnlisted) and resources/list (the account's, not the server's).
func (ms *mcpSession) loadTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ListResourcesRequest:
			return ms.listResources(ctx)
		case *mcp.ListToolsRequest:
			if r.Params == nil || r.Params.Cursor == "" {
				if err := ms.syncTools(ctx); err != nil {
					return nil, err
				}
			}
		case *mcp.CallToolRequest:
			if r.Params != nil && !ms.has(r.Params.Name) {
				res, err := ms.callUnlisted(ctx, r)
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

func (ms *mcpSession) has(name string) bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	_, ok := ms.tools[name]
	return ok || name == searchToolName
}

// syncTools asks the dispatcher for the account's tools (tool.list) and
// makes the session's MCP server list exactly those: new and changed tools
// are added, gone ones removed.
func (ms *mcpSession) syncTools(ctx context.Context) error {
	list, err := ms.listTools(ctx)
	if err != nil {
		return err
	}
	ms.applyTools(list)
	return nil
}

// applyTools makes the session's MCP server list exactly list; the go-sdk
// tells the host (notifications/tools/list_changed) when that changed it.
func (ms *mcpSession) applyTools(list []tools.Tool) {
	ms.syncMu.Lock()
	defer ms.syncMu.Unlock()
	names := make([]string, len(list))
	for i, t := range list {
		names[i] = t.Name
	}
	mapped := mcpToolNames(names)
	type added struct {
		tool    *mcp.Tool
		handler mcp.ToolHandler
	}
	var adds []added
	next := make(map[string]mcpTool, len(list))
	for _, t := range list {
		tool := mcpToolOf(t, mapped[t.Name])
		b, err := json.Marshal(tool)
		if err != nil {
			continue // not reached: a tool's parts are JSON
		}
		entry := mcpTool{name: t.Name, structured: tool.OutputSchema != nil, digest: sha256.Sum256(b)}
		next[tool.Name] = entry
		if old, ok := ms.tool(tool.Name); !ok || old != entry {
			adds = append(adds, added{tool, ms.callTool(t.Name, entry.structured)})
		}
	}
	ms.mu.Lock()
	var gone []string
	for name := range ms.tools {
		if _, kept := next[name]; !kept {
			gone = append(gone, name)
		}
	}
	ms.tools = next
	ms.mu.Unlock()
	for _, a := range adds {
		if err := ms.addTool(a.tool, a.handler); err != nil {
			ms.srv.log.Warn("mcp: a tool is left out of the session", "tool", next[a.tool.Name].name, "error", err)
			ms.mu.Lock()
			delete(ms.tools, a.tool.Name)
			ms.mu.Unlock()
		}
	}
	if len(gone) > 0 {
		ms.server.RemoveTools(gone...)
	}
}

// mcpPreloadTimeout bounds preload.
const mcpPreloadTimeout = 2 * time.Second

// preload gives a new session, before it is connected, the account's tools
// from the catalogue (as the watch takes them): the host's first tools/list
// then changes nothing, and no list_changed follows it.
func (ms *mcpSession) preload(ctx context.Context) {
	if ms.srv.svc.Tools == nil {
		return
	}
	// Bounded: an MCP server of the account's that is slow to list its
	// tools must not hold the host's initialize; what is missed comes with
	// the first tools/list (and one list_changed).
	ctx, cancel := context.WithTimeout(ctx, mcpPreloadTimeout)
	defer cancel()
	p, err := ms.auth.principal(ctx, ms.srv.dispatcher)
	if err != nil {
		return
	}
	if list, err := ms.srv.svc.Tools.List(ctx, p, tools.ListOptions{}); err == nil {
		ms.applyTools(list)
	}
}

// listed says the host has had the session's tools: only then is a change
// worth telling it.
func (ms *mcpSession) listed() bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return len(ms.tools) > 0
}

// addTool adds a tool to the session's server. The go-sdk panics on a tool
// it finds malformed (an input schema's x-mcp-header annotation it refuses,
// say, from another MCP server's tool): that tool is left out, as an error.
func (ms *mcpSession) addTool(t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	ms.server.AddTool(t, h)
	return nil
}

func (ms *mcpSession) tool(name string) (mcpTool, bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	t, ok := ms.tools[name]
	return t, ok
}

// mcpName is the name the host sees for the sluice tool name, if the
// session has listed it.
func (ms *mcpSession) mcpName(name string) (string, bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for n, t := range ms.tools {
		if t.name == name {
			return n, true
		}
	}
	return "", false
}

// listTools is tool.list through the dispatcher.
func (ms *mcpSession) listTools(ctx context.Context) ([]tools.Tool, error) {
	f := ms.dispatch(ctx, e2a.MethodToolList, map[string]any{}, nil)
	if f.Kind == e2a.KindError {
		return nil, rpcError(f)
	}
	return toolsOfFrame(f.Body["result"])
}

// toolsOfFrame reads tool.list's result: the tools as the handler wrote
// them, or (from a frame that went through JSON) decoded again.
func toolsOfFrame(v any) ([]tools.Tool, error) {
	if m, ok := v.(map[string]any); ok {
		if list, ok := m["tools"].([]tools.Tool); ok {
			return list, nil
		}
	}
	var body struct {
		Tools []tools.Tool `json:"tools"`
	}
	if err := remarshalAny(v, &body); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool list could not be read"}
	}
	return body.Tools, nil
}
