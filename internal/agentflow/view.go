package agentflow

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Step statuses in a Run.
const (
	StepPending   = "pending"
	StepRunning   = "running" // the step to run next (it may be waiting in the queue)
	StepCompleted = "completed"
	StepFailed    = "failed"
	// StepCancelled marks every step of a cancelled run that did not
	// complete: none of them will run.
	StepCancelled = "cancelled"
)

// Run is what GET /api/v1/agent-workflows/runs/{id} answers.
type Run struct {
	RunID      string       `json:"run_id"`
	WorkflowID string       `json:"workflow_id"`
	Name       string       `json:"name"`
	Version    string       `json:"version"`
	Status     store.Status `json:"status"`
	// Steps in run order with their state.
	Steps []StepState `json:"steps"`
	// Outputs of the completed steps by step id.
	Outputs map[string]json.RawMessage `json:"outputs"`
	// Output is the last step's output once the run succeeded (null before).
	Output json.RawMessage `json:"output"`
	Errors []fault.Object  `json:"errors,omitempty"`
	// Pending is what a waiting run asks: a step whose remote A2A task asks
	// for input ({"type":"agent_input","agent","state","remoteTaskId",
	// "contextId","question"}); run.answer answers it.
	Pending    any        `json:"pending,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// StepState is one step of a Run.
type StepState struct {
	StepID    string `json:"step_id"`
	AgentName string `json:"agent_name"`
	Status    string `json:"status"`
}

// Get returns the account's run; another account's run, or an execution that
// is not an agent workflow run, is NotFound.
func (r *Runner) Get(ctx context.Context, accountID, runID string) (*Run, error) {
	e, err := r.Store.GetExecution(ctx, accountID, runID)
	if err != nil {
		return nil, err
	}
	if e.Kind != store.KindAgentWorkflow {
		return nil, runNotFound(runID)
	}
	wf, err := decodeDescriptor(e.Document)
	if err != nil {
		return nil, err
	}
	v := &Run{RunID: e.ID, WorkflowID: wf.WorkflowID, Name: wf.Name, Version: wf.Version, Status: e.Status,
		Output: json.RawMessage("null"), CreatedAt: e.CreatedAt, StartedAt: e.StartedAt, FinishedAt: e.FinishedAt}
	var failedStep string
	if e.Status.Final() {
		var res result
		if err := json.Unmarshal(e.Result, &res); err != nil {
			return nil, fault.New(fault.Internal, "the result of run %s is unreadable", runID).WithCause(err)
		}
		v.Outputs, failedStep = res.Outputs, res.FailedStep
		if len(res.Output) > 0 {
			v.Output = res.Output
		}
		if len(e.Errors) > 0 {
			_ = json.Unmarshal(e.Errors, &v.Errors)
		}
	} else {
		if v.Outputs, err = r.outputsSoFar(ctx, wf, e); err != nil {
			return nil, err
		}
		if e.Status == store.StatusWaiting && len(e.Result) > 0 {
			var res result
			if json.Unmarshal(e.Result, &res) == nil {
				v.Pending = res.Pending
			}
		}
	}
	if v.Outputs == nil {
		v.Outputs = map[string]json.RawMessage{}
	}
	next := true // the first step without an output is the one running
	for _, id := range wf.Order() {
		st := StepState{StepID: id, AgentName: wf.Steps[id].AgentName, Status: StepPending}
		switch _, done := v.Outputs[id]; {
		case done:
			st.Status = StepCompleted
		case id == failedStep:
			st.Status, next = StepFailed, false
		case e.Status == store.StatusCancelled:
			st.Status = StepCancelled
		case next && !e.Status.Final():
			st.Status, next = StepRunning, false
		}
		v.Steps = append(v.Steps, st)
	}
	return v, nil
}

// outputsSoFar are the outputs of the steps of e, not final, recorded in
// its checkpoint (the engine's, or the old format's).
func (r *Runner) outputsSoFar(ctx context.Context, wf *agenthttp.Workflow, e store.Execution) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	raw, err := r.Store.LoadCheckpoint(ctx, e.ID)
	switch {
	case fault.KindOf(err) == fault.NotFound:
		return out, nil
	case err != nil:
		return nil, err
	case isLegacy(raw):
		var old legacyProgress
		if err := json.Unmarshal(raw, &old); err != nil {
			return nil, fault.New(fault.Internal, "the checkpoint of run %s is unreadable", e.ID).WithCause(err)
		}
		for id, v := range old.Outputs {
			out[id] = v
		}
		return out, nil
	}
	results, err := engine.CheckpointResults(raw)
	if err != nil {
		return nil, fault.New(fault.Internal, "the checkpoint of run %s is unreadable", e.ID).WithCause(err)
	}
	for _, id := range wf.Order() {
		if v, ok := results[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}
