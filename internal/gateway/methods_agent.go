package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Agents is the HTTP task agent registry (internal/agent), the caller that
// reaches the agents (internal/bridge's Client: through the queue and a
// worker) and this process's invoker, whose breakers and health checks the
// admin listing shows.
type Agents struct {
	Registry *agent.Registry
	Caller   op.AgentCaller
	Invoker  *agent.Invoker
}

// allowsAgent: the account's agents grant names it (or "*").
func allowsAgent(p *account.Principal, name string) bool {
	return p.Permissions.AllowsAgent(name)
}

// adminAgentsRegister: the body is a registry entry (RESOLUTIONS); plain
// secrets go into the vault and come back as credentialRefs.
func (s *Server) adminAgentsRegister(ctx context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	raw, err := json.Marshal(c.Env.Params)
	if err != nil {
		return fault.New(fault.Invalid, "the agent entry is not JSON")
	}
	e, err := agenthttp.DecodeEntry(raw, agenthttp.Limits{})
	if err != nil {
		return fault.New(fault.Invalid, "%v", err)
	}
	stored, _, err := s.svc.Agents.Registry.Register(ctx, e)
	if err != nil {
		return err
	}
	s.refreshAgents(ctx)
	return w.Complete(stored)
}

func (s *Server) adminAgentsList(ctx context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	list, err := s.svc.Agents.Registry.List(ctx)
	if err != nil {
		return err
	}
	if list == nil {
		list = []agenthttp.Entry{}
	}
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		var m map[string]any
		b, _ := json.Marshal(e)
		_ = json.Unmarshal(b, &m)
		m["breaker"] = s.svc.Agents.Invoker.Breaker(e.Name)
		if h, ok := s.svc.Agents.Invoker.Health(e.Name); ok {
			m["health"] = h
		}
		out = append(out, m)
	}
	return w.Complete(map[string]any{"agents": out})
}

func (s *Server) adminAgentsRemove(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("id")
	if err := s.svc.Agents.Registry.Remove(ctx, name); err != nil {
		return err
	}
	s.refreshAgents(ctx)
	return w.Complete(map[string]any{"removed": name})
}

// refreshAgents brings discovery up to date with the registry.
func (s *Server) refreshAgents(ctx context.Context) {
	if s.svc.Catalog == nil {
		return
	}
	if err := s.svc.Catalog.RefreshAgents(ctx); err != nil {
		s.log.Warn("discovery not refreshed after an agent change", "error", fault.From(err))
	}
}

// agentInvoke is agent.invoke {agent, input, task_id?}: the agent's output.
func (s *Server) agentInvoke(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("agent")
	input := a.Any("input")
	taskID := a.String("task_id")
	if !allowsAgent(c.Principal, name) {
		return fault.Typed(fault.PermissionDenied, fault.PermissionError, "agent %q is not in this account's agents", name).
			WithSuggestions("Ask an admin to grant it in agents")
	}
	out, err := s.invokeAgent(ctx, name, taskID, input, c.Env.CorrelationID, c.Env.RequestID)
	if err != nil {
		return err
	}
	return w.Complete(out)
}

func (s *Server) invokeAgent(ctx context.Context, name, taskID string, input any, correlation, requestID string) (json.RawMessage, error) {
	if taskID == "" {
		taskID = ids.New(ids.Task)
	}
	if correlation == "" {
		correlation = requestID
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, fault.New(fault.Invalid, "params.input is not JSON").WithDetail("path", "params.input")
	}
	return s.svc.Agents.Caller.Invoke(ctx, name, taskID, raw, correlation)
}

// agentTools serves each registered agent the account may call as the
// session tool agent.<name> (RESOLUTIONS): its arguments are the task's
// input_data, its answer the agent's output.
type agentTools struct{ s *Server }

const agentToolPrefix = "agent."

func (t agentTools) Handles(name string) bool {
	return strings.HasPrefix(name, agentToolPrefix) && name != e2a.MethodAgentInvoke
}

func (t agentTools) List(ctx context.Context, p *account.Principal) ([]tools.Tool, error) {
	list, err := t.s.svc.Agents.Registry.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []tools.Tool
	for _, e := range list {
		if !allowsAgent(p, e.Name) {
			continue
		}
		// What an agent does with a task is its own: it is taken to act.
		out = append(out, tools.Tool{Name: agentToolPrefix + e.Name, Title: "Agent " + e.Name, Tags: []string{"agent"}, Version: "1.0",
			Effects:     tools.Effects{Destructive: true, OpenWorld: true},
			Description: "Send a task to the HTTP task agent " + e.Name + "; the arguments are its input_data and the answer its output_data.",
			Input:       json.RawMessage(`{"type":"object"}`)})
	}
	return out, nil
}

func (t agentTools) Call(ctx context.Context, p *account.Principal, name string, args map[string]any, _ func(tools.Event)) (*tools.Result, error) {
	agentName := strings.TrimPrefix(name, agentToolPrefix)
	if !allowsAgent(p, agentName) {
		return nil, tools.Denied(name)
	}
	if _, err := t.s.svc.Agents.Registry.Get(ctx, agentName); err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
			return nil, tools.UnknownTool(name)
		}
		return nil, err
	}
	out, err := t.s.invokeAgent(ctx, agentName, "", args, "", ids.New(ids.Task))
	if err != nil {
		fe := fault.From(err)
		if fe.Kind == fault.Invalid || fe.Kind == fault.PermissionDenied {
			return nil, err
		}
		return &tools.Result{Success: false, Error: fe.Message, ErrorCode: fault.Upstream.Row().ToolCode, Summary: "the agent failed"}, nil
	}
	var data any
	_ = json.Unmarshal(out, &data)
	return &tools.Result{Success: true, Data: data, Summary: "agent " + agentName + " answered"}, nil
}
