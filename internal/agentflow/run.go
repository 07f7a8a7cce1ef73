// Package agentflow is the kind of run behind agent workflows
// (protocol/agenthttp's Workflow, RESOLUTIONS "HTTP task agents"): a run is a
// store.Execution of kind store.KindAgentWorkflow whose Document is a
// descriptor starting with {"agent_workflow": and which internal/execution's
// Manager runs like any other run. Its workflow compiles to an engine plan of
// InvokeAgent steps, one per workflow step in run order (plan.go): the engine
// checkpoints each step's output, so a run resumes after its last completed
// step, on whichever gateway leases it, and each step calls its agent with
// task_id runID/stepID, so an agent de-duplicates a step repeated after a
// crash.
package agentflow

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// RunMethod is the gateway method that starts an agent workflow run: the
// method a run's frames answer, on every route that streams it.
const RunMethod = "agent.workflow.run"

// LegacyTopic is the queue topic the steps of runs went on before runs
// moved to the run service; Drain empties it after an upgrade.
const LegacyTopic = "agent-workflows"

// digestPrefix starts the Digest of a run's execution record (the record's
// Kind, store.KindAgentWorkflow, is what selects runs).
const digestPrefix = "agentflow:"

// Store is what a Runner reads runs from (store.Store has it).
type Store interface {
	store.Executions
	store.Checkpoints
}

// Runs is the run service that stores, queues, runs and cancels runs
// (internal/execution's Manager).
type Runs interface {
	Submit(ctx context.Context, rec store.Execution) (*execution.Outcome, error)
	CancelRun(ctx context.Context, accountID, id string) (store.Execution, error)
}

// Invoker calls an agent (internal/agent's Invoker). It retries as the
// agent's retry_config says; an error is the step's final failure.
type Invoker interface {
	Invoke(ctx context.Context, name, taskID string, input json.RawMessage, correlationID string) (json.RawMessage, error)
}

// Runner starts and reports agent workflow runs, and is their Kind in the
// run service. Its exported fields are set before first use and not changed
// after.
type Runner struct {
	Runs    Runs
	Store   Store
	Invoker Invoker
	// Agents reports whether an agent is registered (Start refuses a
	// workflow naming another); nil skips that check.
	Agents func(ctx context.Context, name string) (bool, error)
	Logger *slog.Logger // nil: discard
	// Monitor, when set, is told of each step's progress (RUNNING when the
	// step starts invoking its agent, then COMPLETED or FAILED), on the
	// run's goroutine, in order. The run waits for it, so it must be
	// quick: hand the message over (a buffered channel, a queue publish
	// bounded by the context, which ends after MonitorTimeout) and return.
	// It cannot fail a run: it returns nothing, and a panic is logged.
	Monitor func(ctx context.Context, m agenthttp.MonitoringMessage)
}

func (r *Runner) log() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

// descriptor is the execution Document of a run.
type descriptor struct {
	Workflow json.RawMessage `json:"agent_workflow"`
	// Conversation is the conversation key the run was started in
	// (op.WithAgentConversation on Start's context; the A2A server's task
	// contextId): every step's agent call is part of it.
	Conversation string `json:"conversation,omitempty"`
}

// result is a finished run's stored result.
type result struct {
	Status     store.Status               `json:"status"`
	Outputs    map[string]json.RawMessage `json:"outputs"`
	Output     json.RawMessage            `json:"output"`
	FailedStep string                     `json:"failed_step,omitempty"`
	// Pending is what a waiting run's step asks (an A2A agent's question):
	// the engine's waiting request.
	Pending any `json:"pending,omitempty"`
}

// TaskID is the agent task id of a step: the same on every attempt and
// every redelivery, the agent's idempotency key.
func TaskID(runID, stepID string) string { return runID + "/" + stepID }

// Start validates wf (every rule, agents included), stores the run and
// queues it. input is the workflow's input, a JSON object (empty: {}).
// clientID, when set, is the caller's key for this run: a second Start with
// it answers the first run's id and starts nothing. A conversation key on
// ctx (op.WithAgentConversation) is kept with the run: its steps' agent
// calls are part of that conversation.
func (r *Runner) Start(ctx context.Context, accountID string, wf *agenthttp.Workflow, input json.RawMessage, clientID string) (string, error) {
	if err := r.Validate(ctx, wf); err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	if !json.Valid(input) {
		return "", fault.New(fault.Invalid, "the workflow input is not valid JSON").WithDetail("field", "input")
	}
	if t := bytes.TrimSpace(input); t[0] != '{' {
		return "", fault.New(fault.Invalid, "the workflow input must be a JSON object").WithDetail("field", "input")
	}
	var in bytes.Buffer
	_ = json.Compact(&in, input)
	doc, err := encodeDescriptor(wf, op.AgentConversationFrom(ctx))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(doc)
	out, err := r.Runs.Submit(ctx, store.Execution{ID: ids.New(ids.AgentWorkflow), AccountID: accountID, Kind: store.KindAgentWorkflow,
		Digest: digestPrefix + hex.EncodeToString(sum[:]), Document: doc, Input: in.Bytes(), ClientID: clientID})
	if err != nil {
		return "", err
	}
	if out.Record.Kind != store.KindAgentWorkflow || out.Record.Digest != digestPrefix+hex.EncodeToString(sum[:]) {
		return "", fault.New(fault.Conflict, "client id %q names another run", clientID).WithDetail("field", "client_id").
			WithDetail("run_id", out.Record.ID)
	}
	return out.Record.ID, nil
}

// Validate checks wf with every rule of agent workflows, the agents' existence
// included (when Agents is set), and refuses references nested where they
// would not be rendered (CheckNestedRefs: only new runs, stored ones resume
// as they are); a bad workflow is a fault.Invalid naming the field.
func (r *Runner) Validate(ctx context.Context, wf *agenthttp.Workflow) error {
	var check agenthttp.AgentCheck
	if r.Agents != nil {
		check = func(name string) (bool, error) { return r.Agents(ctx, name) }
	}
	err := wf.Validate(check)
	if err == nil {
		err = wf.CheckNestedRefs()
	}
	var ae *agenthttp.Error
	if errors.As(err, &ae) {
		fe := fault.New(fault.Invalid, "%s", trimCodec(ae))
		if ae.Path != "" {
			fe = fe.WithDetail("field", ae.Path).At(0, ae.Path)
		}
		return fe
	}
	return err
}

// trimCodec is the codec's message without its "agenthttp: " prefix.
func trimCodec(ae *agenthttp.Error) string {
	s := ae.What
	if ae.Path != "" {
		s += ": field " + ae.Path
	}
	return s + ": " + ae.Message
}

func encodeDescriptor(wf *agenthttp.Workflow, conversation string) ([]byte, error) {
	b, err := agenthttp.EncodeWorkflow(wf)
	if err != nil {
		return nil, fault.New(fault.Invalid, "the workflow does not encode").WithCause(err)
	}
	return json.Marshal(descriptor{Workflow: b, Conversation: conversation})
}

// conversationOf is the conversation key a run's document keeps ("": none).
func conversationOf(doc []byte) string {
	var d descriptor
	_ = json.Unmarshal(doc, &d)
	return d.Conversation
}

// decodeDescriptor reads the workflow back from a run's document.
func decodeDescriptor(doc []byte) (*agenthttp.Workflow, error) {
	var d descriptor
	if !bytes.HasPrefix(doc, []byte(store.AgentWorkflowPrefix)) || json.Unmarshal(doc, &d) != nil {
		return nil, fault.New(fault.Internal, "the run's document is not an agent workflow descriptor")
	}
	wf, err := agenthttp.DecodeWorkflow(d.Workflow, agenthttp.Limits{})
	if err != nil {
		return nil, fault.New(fault.Internal, "the run's workflow does not decode").WithCause(err)
	}
	return wf, nil
}

// AgentLookup is what AgentsIn needs: internal/agent's Registry has it.
type AgentLookup interface {
	Get(ctx context.Context, name string) (agenthttp.Entry, error)
}

// AgentsIn adapts a registry to Runner.Agents: NotFound is "not
// registered", any other error is returned as it is.
func AgentsIn(reg AgentLookup) func(ctx context.Context, name string) (bool, error) {
	return func(ctx context.Context, name string) (bool, error) {
		_, err := reg.Get(ctx, name)
		switch {
		case err == nil:
			return true, nil
		case fault.KindOf(err) == fault.NotFound:
			return false, nil
		}
		return false, err
	}
}
