// Package agentflow runs multi-step agent workflows (protocol/agenthttp's
// Workflow, RESOLUTIONS "HTTP task agents") durably: a run is a
// store.Execution whose Document is a descriptor starting with
// {"agent_workflow": (see IsRun), its progress the execution's checkpoint,
// and each step one queue item on topic Topic. A worker leases a step's
// item, calls the step's agent with task_id runID/stepID (so an agent
// de-duplicates a redelivered step), records the output in the checkpoint,
// then enqueues the next step or finishes the run, and only then acks. A
// crash anywhere in between redelivers the item: a step already recorded is
// not invoked again, so a run resumes after its last completed step.
package agentflow

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// RunMethod is the gateway method that starts an agent workflow run: the
// method a run's frames answer, on every route that streams it.
const RunMethod = "agent.workflow.run"

// Topic is the queue topic of workflow steps.
const Topic = "agent-workflows"

// digestPrefix starts the Digest of a run's execution record (the record's
// Kind, store.KindAgentWorkflow, is what selects runs).
const digestPrefix = "agentflow:"

// DefaultLease is how long a worker holds a step before it must extend the
// lease (it extends every third of it while the agent works).
const DefaultLease = 2 * time.Minute

// Store is what a Runner keeps runs in (store.Store has it).
type Store interface {
	store.Executions
	store.Checkpoints
}

// Invoker calls an agent (internal/agent's Invoker). It retries as the
// agent's retry_config says; an error is the step's final failure.
type Invoker interface {
	Invoke(ctx context.Context, name, taskID string, input json.RawMessage, correlationID string) (json.RawMessage, error)
}

// Runner starts, runs and reports agent workflow runs. Its exported fields are set
// before first use and not changed after.
type Runner struct {
	Store   Store
	Queue   queue.Queue
	Invoker Invoker
	// Agents reports whether an agent is registered (Start refuses a
	// workflow naming another); nil skips that check.
	Agents func(ctx context.Context, name string) (bool, error)
	Logger *slog.Logger  // nil: discard
	Lease  time.Duration // 0: DefaultLease
	// Monitor, when set, is told of each step's progress (RUNNING when the
	// worker starts invoking its agent, then COMPLETED or FAILED), on the
	// worker's goroutine, in order. The worker waits for it, so it must be
	// quick: hand the message over (a buffered channel, a queue publish
	// bounded by the context, which ends after MonitorTimeout) and return.
	// It cannot fail a run: it returns nothing, and a panic is logged.
	Monitor func(ctx context.Context, m agenthttp.MonitoringMessage)
	// CancelPoll is how often a worker reads the record of the run whose
	// step it runs, to stop the step when another process cancelled the
	// run (0: DefaultCancelPoll).
	CancelPoll time.Duration

	mu sync.Mutex
	// inFlight holds the steps running on this Runner by run id, so that
	// Cancel stops them at once.
	inFlight map[string]map[*stepWatch]context.CancelCauseFunc
}

func (r *Runner) log() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return r.Logger
}

func (r *Runner) lease() time.Duration {
	if r.Lease <= 0 {
		return DefaultLease
	}
	return r.Lease
}

// descriptor is the execution Document of a run.
type descriptor struct {
	Workflow json.RawMessage `json:"agent_workflow"`
}

// progress is a run's checkpoint: the outputs of completed steps, in run
// order.
type progress struct {
	Completed []string                   `json:"completed"`
	Outputs   map[string]json.RawMessage `json:"outputs"`
}

// result is a finished run's stored result.
type result struct {
	Outputs    map[string]json.RawMessage `json:"outputs"`
	Output     json.RawMessage            `json:"output"`
	FailedStep string                     `json:"failed_step,omitempty"`
}

// item is a queue item's payload: which step of which run.
type item struct {
	AccountID string `json:"account_id"`
	RunID     string `json:"run_id"`
	StepID    string `json:"step_id"`
}

// TaskID is the agent task id of a step: the same on every attempt and
// every redelivery, the agent's idempotency key.
func TaskID(runID, stepID string) string { return runID + "/" + stepID }

// Start validates wf (every rule, agents included), stores the run and
// enqueues its first step. input is the workflow's input, a JSON object
// (empty: {}).
func (r *Runner) Start(ctx context.Context, accountID string, wf *agenthttp.Workflow, input json.RawMessage) (string, error) {
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
	doc, err := encodeDescriptor(wf)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(doc)
	e := store.Execution{ID: ids.New(ids.AgentWorkflow), AccountID: accountID, Kind: store.KindAgentWorkflow, Digest: digestPrefix + hex.EncodeToString(sum[:]),
		Document: doc, Input: in.Bytes(), Status: store.StatusQueued, Async: true}
	if _, _, err := r.Store.CreateExecution(ctx, e); err != nil {
		return "", err
	}
	if err := r.enqueue(ctx, accountID, e.ID, wf.StartStep); err != nil {
		// The record exists: fail it rather than leave it queued forever.
		r.finish(context.WithoutCancel(ctx), accountID, e.ID, store.StatusFailed, progress{}, "",
			fault.New(fault.Unavailable, "the run could not be queued"))
		return "", err
	}
	return e.ID, nil
}

// Validate checks wf with every rule of agent workflows, the agents' existence
// included (when Agents is set); a bad workflow is a fault.Invalid naming
// the field.
func (r *Runner) Validate(ctx context.Context, wf *agenthttp.Workflow) error {
	var check agenthttp.AgentCheck
	if r.Agents != nil {
		check = func(name string) (bool, error) { return r.Agents(ctx, name) }
	}
	err := wf.Validate(check)
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

func encodeDescriptor(wf *agenthttp.Workflow) ([]byte, error) {
	b, err := agenthttp.EncodeWorkflow(wf)
	if err != nil {
		return nil, fault.New(fault.Invalid, "the workflow does not encode").WithCause(err)
	}
	return json.Marshal(descriptor{Workflow: b})
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

func (r *Runner) enqueue(ctx context.Context, accountID, runID, stepID string) error {
	payload, _ := json.Marshal(item{AccountID: accountID, RunID: runID, StepID: stepID})
	_, err := r.Queue.Enqueue(ctx, queue.Message{Topic: Topic, ID: TaskID(runID, stepID), Payload: payload})
	return err
}

// loadProgress reads a run's checkpoint (none yet: nothing completed).
func (r *Runner) loadProgress(ctx context.Context, runID string) (progress, error) {
	p := progress{Outputs: map[string]json.RawMessage{}}
	raw, err := r.Store.LoadCheckpoint(ctx, runID)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return p, nil
		}
		return p, err
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fault.New(fault.Internal, "the checkpoint of run %s is unreadable", runID).WithCause(err)
	}
	if p.Outputs == nil {
		p.Outputs = map[string]json.RawMessage{}
	}
	return p, nil
}

// finish makes the run final with its outputs so far; cause is the failure
// (nil on success). A run already final is left as it is.
func (r *Runner) finish(ctx context.Context, accountID, runID string, status store.Status, p progress, failedStep string, cause *fault.Error) error {
	res := result{Outputs: p.Outputs, Output: json.RawMessage("null"), FailedStep: failedStep}
	if res.Outputs == nil {
		res.Outputs = map[string]json.RawMessage{}
	}
	if status == store.StatusSuccess && len(p.Completed) > 0 {
		res.Output = p.Outputs[p.Completed[len(p.Completed)-1]]
	}
	u := store.ExecutionUpdate{Status: status}
	u.Result, _ = json.Marshal(res)
	if cause != nil {
		u.Errors, _ = json.Marshal([]fault.Object{cause.Object()})
	}
	err := r.Store.UpdateExecution(ctx, accountID, runID, u)
	if fault.KindOf(err) == fault.Conflict {
		return nil // final already: another worker got there first
	}
	return err
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
