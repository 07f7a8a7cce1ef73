package op

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/sluicehq/sluice/internal/fault"
)

// What a caller of an agent (AgentCaller) asks of one call beyond its input
// travels in the call's context, so that every AgentCaller (the invoker,
// the queue bridge) carries it without a change of signature. It is
// declared here, below internal/agent, because InvokeAgent sets it and
// internal/agent imports this package; internal/agent re-exports it as
// agent.WithUpdates, agent.Update and agent.WithContinuation.

// AgentUpdate is one piece of progress of an agent call: Kind is an E2A
// delta kind (e2a.DeltaText, DeltaReasoning, DeltaTool, DeltaCustom);
// Delta a string for text and reasoning, an object otherwise (a tool
// delta {"toolCallId","title","kind","status",...}; custom {"type":...},
// such as {"type":"status","state":...}, {"type":"artifact",...} or
// {"type":"plan","entries":[...]}). It is scrubbed of the agent's
// credentials like the call's output.
type AgentUpdate struct {
	Kind  string `json:"delta_kind"`
	Delta any    `json:"delta"`
}

type updatesKey struct{}

// WithAgentUpdates asks the agent call made with the returned context to
// pass its updates to fn while it runs, in order, from the goroutine that
// reads them (fn must not block for long).
func WithAgentUpdates(ctx context.Context, fn func(AgentUpdate)) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, updatesKey{}, fn)
}

// AgentUpdatesFrom is the updates function of ctx (nil: nobody listens).
func AgentUpdatesFrom(ctx context.Context) func(AgentUpdate) {
	fn, _ := ctx.Value(updatesKey{}).(func(AgentUpdate))
	return fn
}

// AgentContinuation names a remote agent's task that waits for input: the
// call made with it sends its input as the next message of that task
// instead of starting a new one. Only A2A agents have such tasks.
type AgentContinuation struct {
	TaskID    string `json:"remoteTaskId"`
	ContextID string `json:"contextId,omitempty"`
}

type continuationKey struct{}

// WithAgentContinuation makes the agent call made with the returned
// context continue the remote task c.
func WithAgentContinuation(ctx context.Context, c AgentContinuation) context.Context {
	if c.TaskID == "" {
		return ctx
	}
	return context.WithValue(ctx, continuationKey{}, c)
}

// AgentContinuationFrom is ctx's continuation (ok false: a new task).
func AgentContinuationFrom(ctx context.Context) (AgentContinuation, bool) {
	c, ok := ctx.Value(continuationKey{}).(AgentContinuation)
	return c, ok
}

// DetailInputRequired is the fault detail that marks an agent call which
// ended because the remote task waits for its caller (input, or
// authorization): its value is an AgentPending as a map.
const DetailInputRequired = "inputRequired"

// AgentPending is what a remote task that waits for its caller asks: an
// A2A agent's task in input-required, or an ACP agent's permission request
// held open (TaskID is then the pending permission's id, and Options the
// choices the answer must name).
type AgentPending struct {
	Agent     string `json:"agent"`
	State     string `json:"state"` // the A2A state: TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED
	TaskID    string `json:"remoteTaskId"`
	ContextID string `json:"contextId,omitempty"`
	// Question is the agent's status message, as an output is read from
	// parts: {"text": ...}, a data part's value, or {"data","text","files"};
	// for an ACP permission request {"title", "toolCall"}.
	Question any `json:"question,omitempty"`
	// Options, when the agent offers a closed set of answers, are those
	// answers: the caller's answer names one (its optionId, name or kind).
	Options []AgentOption `json:"options,omitempty"`
}

// AgentOption is one answer an agent offers (an ACP permission option).
type AgentOption struct {
	ID   string `json:"optionId"`
	Name string `json:"name"`
	Kind string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

// StateInputRequired is the state of a pending question that asks for
// input (rather than authorization).
const StateInputRequired = "TASK_STATE_INPUT_REQUIRED"

// AgentPendingOf reports whether err is an agent call that ended waiting
// for its caller, and what it asks. It reads the fault's details, which
// survive the queue bridge.
func AgentPendingOf(err error) (*AgentPending, bool) {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return nil, false
	}
	return pendingOf(fe.Details[DetailInputRequired])
}

// AgentWaitOf reports whether a waiting step's request (Suspend.Request,
// as a checkpoint keeps it) is an agent step's remote task waiting for
// input, and which.
func AgentWaitOf(request any) (*AgentPending, bool) {
	m, ok := request.(map[string]any)
	if !ok || m["type"] != "agent_input" {
		return nil, false
	}
	return pendingOf(m)
}

func pendingOf(v any) (*AgentPending, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	p := &AgentPending{Question: m["question"]}
	p.Agent, _ = m["agent"].(string)
	p.State, _ = m["state"].(string)
	p.TaskID, _ = m["remoteTaskId"].(string)
	p.ContextID, _ = m["contextId"].(string)
	if p.TaskID == "" {
		return nil, false
	}
	// Options arrive as Go values in process and as decoded JSON after the
	// agent queue: both read the same way.
	switch opts := m["options"].(type) {
	case []AgentOption:
		p.Options = opts
	case []any:
		for _, o := range opts {
			om, _ := o.(map[string]any)
			id, _ := om["optionId"].(string)
			if id == "" {
				continue
			}
			name, _ := om["name"].(string)
			kind, _ := om["kind"].(string)
			p.Options = append(p.Options, AgentOption{ID: id, Name: name, Kind: kind})
		}
	}
	return p, true
}

// AgentPendingFrom reads the inputRequired detail of an error's details as
// they arrive over the wire (an e2a.error frame's details).
func AgentPendingFrom(details map[string]any) (*AgentPending, bool) {
	return pendingOf(details[DetailInputRequired])
}

// Map is p as a fault detail (the form AgentPendingOf reads).
func (p *AgentPending) Map() map[string]any {
	m := map[string]any{"agent": p.Agent, "state": p.State, "remoteTaskId": p.TaskID}
	if p.ContextID != "" {
		m["contextId"] = p.ContextID
	}
	if p.Question != nil {
		m["question"] = p.Question
	}
	if len(p.Options) > 0 {
		opts := make([]any, len(p.Options))
		for i, o := range p.Options {
			opts[i] = map[string]any{"optionId": o.ID, "name": o.Name, "kind": o.Kind}
		}
		m["options"] = opts
	}
	return m
}

// PrepareAgentStep is what a durable agent step (InvokeAgent, an agent
// workflow's step) does before it calls its agent: the agent's updates go
// to rc.Progress; and when the step waits for the run's caller (its saved
// state is the remote task's question, AgentStepWaits), the run's answer
// becomes the next message of that remote task, sent under a message id of
// its own derived from the question and the answer (the same again after a
// restart). A step resumed with no answer (its run restarted while the
// call was under way) asks its question again: *Suspend.
func PrepareAgentStep(ctx context.Context, rc *RunContext, input json.RawMessage, taskID string) (context.Context, json.RawMessage, string, error) {
	if rc.Progress != nil {
		progress := rc.Progress
		ctx = WithAgentUpdates(ctx, func(u AgentUpdate) { progress(u.Kind, u.Delta) })
	}
	if len(rc.State) == 0 {
		return ctx, input, taskID, nil
	}
	var p AgentPending
	if err := json.Unmarshal(rc.State, &p); err != nil || p.TaskID == "" {
		return nil, nil, "", fault.New(fault.Internal, "the saved state of agent step %q is not a waiting remote task", rc.OperationID).
			WithOp(rc.OperationID)
	}
	if len(rc.Answer) == 0 {
		return nil, nil, "", agentSuspend(&p)
	}
	ctx = WithAgentContinuation(ctx, AgentContinuation{TaskID: p.TaskID, ContextID: p.ContextID})
	in := answerInput(rc.Answer)
	return ctx, in, DerivedTaskID(rc.Account, rc.ExecutionID, rc.OperationID, append(append([]byte{}, rc.State...), in...)), nil
}

// AgentStepWaits turns an agent call that ended because its remote task
// waits for input into the step's pending decision: the remote task is
// saved (rc.Save, durably, so that an answer after a restart continues it)
// and the step suspends with the agent's question as its request. ok false:
// err is some other failure, for the step to report.
func AgentStepWaits(rc *RunContext, err error) (error, bool) {
	p, ok := AgentPendingOf(err)
	if !ok {
		return nil, false
	}
	state, merr := json.Marshal(p)
	if merr != nil {
		return fault.New(fault.Internal, "the question of agent %q does not encode", p.Agent).WithOp(rc.OperationID), true
	}
	if serr := rc.Save(state); serr != nil {
		return serr, true
	}
	return agentSuspend(p), true
}

func agentSuspend(p *AgentPending) *Suspend {
	what := "input"
	if p.State == "TASK_STATE_AUTH_REQUIRED" {
		what = "authorization"
	} else if len(p.Options) > 0 {
		what = "a decision"
	}
	req := p.Map()
	req["type"] = "agent_input"
	return &Suspend{Reason: "agent " + p.Agent + " asks for " + what, Request: req}
}

// answerInput is the input that carries a run's answer to a remote task:
// an object as it is, a string as {"text": ...} (sent as a text part), any
// other value as {"answer": value}.
func answerInput(answer json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(answer, &v) != nil {
		return json.RawMessage("{}")
	}
	switch x := v.(type) {
	case map[string]any:
		return answer
	case string:
		b, _ := json.Marshal(map[string]any{"text": x})
		return b
	}
	b, _ := json.Marshal(map[string]any{"answer": v})
	return b
}
