package op

import (
	"context"
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

// AgentPending is what a remote task that waits for its caller asks.
type AgentPending struct {
	Agent     string `json:"agent"`
	State     string `json:"state"` // the A2A state: TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED
	TaskID    string `json:"remoteTaskId"`
	ContextID string `json:"contextId,omitempty"`
	// Question is the agent's status message, as an output is read from
	// parts: {"text": ...}, a data part's value, or {"data","text","files"}.
	Question any `json:"question,omitempty"`
}

// AgentPendingOf reports whether err is an agent call that ended waiting
// for its caller, and what it asks. It reads the fault's details, which
// survive the queue bridge.
func AgentPendingOf(err error) (*AgentPending, bool) {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return nil, false
	}
	m, ok := fe.Details[DetailInputRequired].(map[string]any)
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
	return p, true
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
	return m
}
