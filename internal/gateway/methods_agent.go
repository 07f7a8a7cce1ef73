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
		m["recent"] = s.svc.Agents.Invoker.Recent(e.Name)
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

// agentInvoke is agent.invoke {agent, input, task_id?, streaming?,
// remote_task_id?, context_id?}: the agent's output. With streaming, the
// agent's updates come first as e2a.chunk frames of their delta kind. A
// remote A2A task that asks for input ends the call with an upstream error
// whose details.inputRequired hold the question and the remote task's ids;
// calling again with the answer as input and remote_task_id (and
// context_id) sends it as the next message of that task.
//
// context_id (else the call's session, when it comes on one) names the
// caller's conversation with the agent: an ACP agent's calls of one
// conversation share its process and ACP session. The key is the
// account's own (op.AgentConversationKey).
func (s *Server) agentInvoke(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("agent")
	input := a.Any("input")
	taskID := a.String("task_id")
	if !allowsAgent(c.Principal, name) {
		return fault.Typed(fault.PermissionDenied, fault.PermissionError, "agent %q is not in this account's agents", name).
			WithSuggestions("Ask an admin to grant it in agents")
	}
	remote, contextID := a.String("remote_task_id"), a.String("context_id")
	if contextID != "" {
		if err := agenthttp.CheckTaskID("agent.invoke", "context_id", contextID); err != nil {
			return fault.New(fault.Invalid, "params.context_id must be 1 to %d bytes of printable text", agenthttp.MaxTaskIDBytes).
				WithDetail("path", "params.context_id")
		}
	}
	if remote != "" {
		if err := agenthttp.CheckTaskID("agent.invoke", "remote_task_id", remote); err != nil {
			return fault.New(fault.Invalid, "params.remote_task_id must be 1 to %d bytes of printable text", agenthttp.MaxTaskIDBytes).
				WithDetail("path", "params.remote_task_id")
		}
		ctx = agent.WithContinuation(ctx, agent.Continuation{TaskID: remote, ContextID: contextID})
	}
	conversation := contextID
	if conversation == "" {
		conversation = c.Env.SessionID
	}
	ctx = agent.WithConversation(ctx, op.AgentConversationKey(c.Principal.ID, conversation))
	if a.Bool("streaming") {
		ctx = agent.WithUpdates(ctx, func(u agent.Update) { _ = w.Chunk(u.Kind, u.Delta) })
	}
	out, err := s.invokeAgent(ctx, name, taskID, input, c.Env.CorrelationID, c.Env.RequestID)
	if err != nil {
		return howToAnswer(err)
	}
	return w.Complete(out)
}

// howToAnswer adds to the error of a call whose remote task asks for input
// how to answer it through agent.invoke (the suggestions of the agent's
// own error do not cross the queue).
func howToAnswer(err error) error {
	p, ok := op.AgentPendingOf(err)
	if !ok {
		return err
	}
	fe := *fault.From(err)
	next := map[string]any{"agent": p.Agent, "input": "<the answer>", "remote_task_id": p.TaskID}
	if p.ContextID != "" {
		next["context_id"] = p.ContextID
	}
	how := " (an object as input is sent as data, {\"text\": ...} as text)"
	if len(p.Options) > 0 {
		// An ACP agent's permission request: the answer names an option.
		next["input"] = map[string]any{"optionId": p.Options[0].ID}
		ids := make([]string, len(p.Options))
		for i, o := range p.Options {
			ids[i] = o.ID
		}
		how = " (optionId one of " + strings.Join(ids, ", ") + "; the request stays open until agents.acp.pending_timeout)"
	}
	b, _ := json.Marshal(next)
	fe.Suggestions = []string{"Answer the agent's question: call agent.invoke with " + string(b) + how}
	return &fe
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

// ErrorCodeInputRequired is the error_code of a session tool result whose
// remote agent task waits for input.
const ErrorCodeInputRequired = "input_required"

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

// Call sends the task. A streaming caller (onEvent) gets the agent's
// updates as events of kind "progress" with {delta_kind, delta}. A remote
// A2A task that asks for input is a failed result whose error_code is
// "input_required" and whose data holds the question and the remote task's
// ids; the session answers it with agent.invoke (remote_task_id), since a
// tool's arguments are the agent's input.
func (t agentTools) Call(ctx context.Context, p *account.Principal, name string, args map[string]any, onEvent func(tools.Event)) (*tools.Result, error) {
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
	if onEvent != nil {
		ctx = agent.WithUpdates(ctx, func(u agent.Update) {
			onEvent(tools.Event{Kind: "progress", Data: map[string]any{"delta_kind": u.Kind, "delta": u.Delta}})
		})
	}
	out, err := t.s.invokeAgent(ctx, agentName, "", args, "", ids.New(ids.Task))
	if err != nil {
		fe := fault.From(howToAnswer(err))
		if fe.Kind == fault.Invalid || fe.Kind == fault.PermissionDenied {
			return nil, err
		}
		if pending, ok := op.AgentPendingOf(err); ok {
			return &tools.Result{Success: false, Error: fe.Message + ". " + strings.Join(fe.Suggestions, " "), ErrorCode: ErrorCodeInputRequired,
				Data: map[string]any{op.DetailInputRequired: pending.Map()}, Summary: "the agent asks for input"}, nil
		}
		return &tools.Result{Success: false, Error: fe.Message, ErrorCode: fault.Upstream.Row().ToolCode, Summary: "the agent failed"}, nil
	}
	var data any
	_ = json.Unmarshal(out, &data)
	return &tools.Result{Success: true, Data: data, Summary: "agent " + agentName + " answered"}, nil
}
