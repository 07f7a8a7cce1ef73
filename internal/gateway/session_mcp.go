package gateway

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/protocol/e2a"
	"github.com/sluicehq/sluice/protocol/session"
)

// MCPService is what the session's mcp namespace needs of the MCP registry
// (internal/mcp, which holds the registration policy); its gateway methods
// are registered when it is set.
type MCPService interface {
	Register(ctx context.Context, p *account.Principal, g mcp.Registration) (mcp.Server, error)
	List(ctx context.Context, p *account.Principal) ([]mcp.Server, error)
	Unregister(ctx context.Context, p *account.Principal, name string) error
}

func (s *Server) mcpRegister(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	auth, err := mcp.ParseAuth(a.Object("headers"), a.Object("oauth"))
	if err != nil {
		return err
	}
	srv, err := s.svc.MCP.Register(ctx, c.Principal, mcp.Registration{Name: a.String("name"), Command: a.String("command"), URL: a.String("url"), Auth: auth})
	if err != nil {
		return err
	}
	return w.Complete(srv)
}

func (s *Server) mcpList(ctx context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	list, err := s.svc.MCP.List(ctx, c.Principal)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"servers": list})
}

func (s *Server) mcpUnregister(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("name")
	if err := s.svc.MCP.Unregister(ctx, c.Principal, name); err != nil {
		return err
	}
	return w.Complete(map[string]any{"ok": true})
}

// startMCP dispatches an mcp/server/* request like any call.
func (ss *sessionConn) startMCP(ctx context.Context, m session.Message) {
	id := m.Head().ID
	switch x := m.(type) {
	case *session.MCPRegisterReq:
		params := map[string]any{"name": x.Name}
		if x.Command != "" {
			params["command"] = x.Command
		}
		if x.URL != "" {
			params["url"] = x.URL
		}
		for field, raw := range map[string]json.RawMessage{"headers": x.Headers, "oauth": x.OAuth} {
			if len(raw) == 0 {
				continue
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				ss.send(&session.ErrorMessage{ReqID: id, Code: session.CodeSchemaViolation, Message: field + ": " + err.Error()})
				return
			}
			params[field] = v
		}
		ss.start(ctx, id, MethodMCPRegister, params, func(reqID string, f *e2a.Response) session.Message {
			if f.Kind == e2a.KindError {
				msg, _ := f.Body["message"].(string)
				return &session.MCPRegisterResp{Ref: session.Ref{ReqID: reqID}, OK: false, Reason: msg}
			}
			var srv session.MCPServer
			if err := remarshalAny(f.Body["result"], &srv); err != nil {
				return &session.ErrorMessage{ReqID: reqID, Code: session.CodeRuntimeError, Message: "the server could not be encoded"}
			}
			return &session.MCPRegisterResp{Ref: session.Ref{ReqID: reqID}, OK: true, Server: srv}
		})
	case *session.MCPListReq:
		ss.start(ctx, id, MethodMCPList, map[string]any{}, func(reqID string, f *e2a.Response) session.Message {
			if f.Kind == e2a.KindError {
				return errorReply(reqID, f)
			}
			var body struct {
				Servers []session.MCPServer `json:"servers"`
			}
			if err := remarshalAny(f.Body["result"], &body); err != nil {
				return &session.ErrorMessage{ReqID: reqID, Code: session.CodeRuntimeError, Message: "the servers could not be encoded"}
			}
			if body.Servers == nil {
				body.Servers = []session.MCPServer{}
			}
			return &session.MCPListResp{Ref: session.Ref{ReqID: reqID}, Servers: body.Servers}
		})
	case *session.MCPUnregisterReq:
		ss.start(ctx, id, MethodMCPUnregister, map[string]any{"name": x.Name}, func(reqID string, f *e2a.Response) session.Message {
			if f.Kind == e2a.KindError {
				msg, _ := f.Body["message"].(string)
				return &session.MCPUnregisterResp{Ref: session.Ref{ReqID: reqID}, OK: false, Reason: msg}
			}
			return &session.MCPUnregisterResp{Ref: session.Ref{ReqID: reqID}, OK: true}
		})
	}
}
