package agentflow

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Kind is agent workflow runs as the run service runs them.
func (r *Runner) Kind() execution.Kind {
	return execution.Kind{Name: store.KindAgentWorkflow, Method: RunMethod,
		Compile: func(_ context.Context, _ *account.Principal, e store.Execution) (execution.Program, error) {
			return r.compile(e)
		},
		Ended: r.ended}
}

// program is one run's workflow compiled: one step per workflow step, in
// run order, each writing its agent's output to /workflow/<step id>, where
// later steps' ${<step>.output...} references read it.
type program struct {
	wf   *agenthttp.Workflow
	plan *engine.Plan
}

func (p *program) Plan() *engine.Plan { return p.plan }

// Result is a run's stored result: the outputs of the steps that completed,
// the last step's output once the run succeeded, and the step it failed at.
func (p *program) Result(res *engine.Result) any { return resultOf(p.wf, res) }

func resultOf(wf *agenthttp.Workflow, res *engine.Result) result {
	out := result{Status: store.Status(res.Status), Outputs: map[string]json.RawMessage{}, Output: json.RawMessage("null")}
	for _, id := range wf.Order() {
		if v, ok := res.Results[id]; ok {
			out.Outputs[id] = encodeOutput(v)
		}
	}
	if res.Status == engine.StatusSuccess {
		if v, ok := out.Outputs[wf.Final()]; ok {
			out.Output = v
		}
	}
	if res.Status == engine.StatusWaiting && res.Waiting != nil {
		out.Pending = res.Waiting.Request
	}
	if res.Status == engine.StatusFailed && len(res.Errors) > 0 {
		if _, ok := wf.Steps[res.Errors[0].OperationID]; ok {
			out.FailedStep = res.Errors[0].OperationID
		}
	}
	return out
}

func encodeOutput(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// compile builds the program of record e.
func (r *Runner) compile(e store.Execution) (*program, error) {
	wf, err := decodeDescriptor(e.Document)
	if err != nil {
		return nil, err
	}
	plan := &engine.Plan{Steps: map[string]*engine.Step{}, OnError: engine.Stop, Digest: e.Digest}
	order := wf.Order()
	noRetry := 0
	for i, id := range order {
		s := wf.Steps[id]
		out := outputPath(id)
		config, _ := json.Marshal(s)
		plan.Steps[id] = &engine.Step{ID: id, Name: a2e.OpInvokeAgent, Config: config, Output: &out,
			Spec: stepSpec, Retry: engine.RetryOverride{MaxRetries: &noRetry},
			Op: &stepOp{r: r, step: s, before: order[:i]}}
		plan.Order = append(plan.Order, id)
	}
	return &program{wf: wf, plan: plan}, nil
}

// stepSpec is InvokeAgent's: an agent's answer has effects, is metered, and
// only the run's budget cuts a call the invoker is retrying.
var stepSpec = op.Spec{Name: a2e.OpInvokeAgent, SideEffects: true, MetersData: true,
	DefaultTimeout: op.InvokeAgentOp.Spec.DefaultTimeout}

// ended is the result of a run that ends without running on: cancelled,
// or failed before it could. Its steps' outputs so far are in its
// checkpoint.
func (r *Runner) ended(ctx context.Context, e store.Execution, res *engine.Result) any {
	wf, err := decodeDescriptor(e.Document)
	if err != nil {
		return result{Status: store.Status(res.Status), Outputs: map[string]json.RawMessage{}, Output: json.RawMessage("null")}
	}
	done := *res
	if outs, err := r.outputsSoFar(ctx, wf, e); err == nil {
		done.Results = map[string]any{}
		for id, v := range outs {
			var x any
			_ = json.Unmarshal(v, &x)
			done.Results[id] = x
		}
	}
	return resultOf(wf, &done)
}

// stepOp runs one workflow step: it renders the step's input from the
// workflow's input and the outputs before it, and calls the step's agent.
type stepOp struct {
	r      *Runner
	step   *agenthttp.WorkflowStep
	before []string // the steps that ran before it, in order
}

var inputPath = a2e.Path{Root: a2e.RootInput}

func (s *stepOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	input, outputs, err := s.sources(rc.Data)
	if err != nil {
		return nil, err
	}
	rep := stepReport{runID: rc.ExecutionID, stepID: s.step.ID, agent: s.step.AgentName}
	in, err := s.step.RenderInput(input, outputs)
	if err != nil {
		fe := fault.New(fault.Invalid, "step %q: %s", s.step.ID, codecMessage(err)).WithDetail("step", s.step.ID)
		s.r.report(ctx, rep, agenthttp.StepFailed, failedMeta(fe))
		return nil, fe
	}
	// A run cancelled through another gateway is stopped there at its next
	// look at the record; the step looks too, before it calls its agent and
	// after it answers, so no step starts, and no answer is kept, once the
	// run is final.
	if s.r.final(ctx, rc) {
		return nil, errRunFinal
	}
	// An A2A agent's updates are the run's chunk frames; a remote task that
	// asks for input makes the run wait, and its answer continues that task.
	callCtx, in, taskID, err := op.PrepareAgentStep(ctx, rc, in, TaskID(rc.ExecutionID, s.step.ID))
	if err != nil {
		return nil, err
	}
	rep.started = time.Now()
	s.r.report(ctx, rep, agenthttp.StepRunning, nil)
	out, err := s.r.Invoker.Invoke(callCtx, s.step.AgentName, taskID, in, rc.ExecutionID)
	// Cancelled, or the process stops (the step runs again elsewhere, same
	// task_id): whatever the agent answered is dropped. Only a cancel is
	// reported: a stopped step is not over. The record is read once.
	if cancelled := s.r.final(context.WithoutCancel(ctx), rc); cancelled || ctx.Err() != nil {
		if cancelled {
			s.r.report(ctx, rep, agenthttp.StepFailed, cancelledMeta())
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, errRunFinal
	}
	if err != nil {
		if waits, ok := op.AgentStepWaits(rc, err); ok {
			return nil, waits
		}
		fe := s.failure(err)
		s.r.report(ctx, rep, agenthttp.StepFailed, failedMeta(fe))
		return nil, fe
	}
	v, err := decodeOutput(rc, s.step, out)
	if err != nil {
		s.r.report(ctx, rep, agenthttp.StepFailed, failedMeta(fault.From(err)))
		return nil, err
	}
	s.r.report(ctx, rep, agenthttp.StepCompleted, nil)
	return v, nil
}

// errRunFinal ends a step whose run was made final (cancelled) by another
// process before the step could start, or while it ran.
var errRunFinal = errors.New("the run was cancelled")

// final reports whether the step's run is final already: cancelled
// elsewhere. A store that cannot say is taken for "not final": the record
// cannot be changed once final anyway, and the run service looks again.
func (r *Runner) final(ctx context.Context, rc *op.RunContext) bool {
	e, err := r.Store.GetExecution(ctx, rc.Account, rc.ExecutionID)
	return err == nil && e.Status.Final()
}

// sources are the workflow's input and the outputs of the steps before
// this one, as the step's templates read them.
func (s *stepOp) sources(data op.Data) (json.RawMessage, map[string]json.RawMessage, error) {
	in, err := data.Get(inputPath)
	if err != nil {
		in = map[string]any{}
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, nil, fault.New(fault.Internal, "the workflow input does not encode").WithCause(err)
	}
	outputs := make(map[string]json.RawMessage, len(s.before))
	for _, id := range s.before {
		v, err := data.Get(outputPath(id))
		if err != nil {
			continue // not recorded: a reference to it names it missing
		}
		outputs[id] = encodeOutput(v)
	}
	return input, outputs, nil
}

// failure is the step's failure as the run reports it: the agent's kind
// and message, naming the step and the agent; never retried by the engine
// (the invoker retried as the agent's retry_config says).
func (s *stepOp) failure(err error) *fault.Error {
	fe := fault.From(err)
	failed := &fault.Error{Kind: fe.Kind, Type: fe.Type, Message: "step " + quote(s.step.ID) + " (agent " + quote(s.step.AgentName) + "): " + fe.Message}
	failed = failed.WithDetail("step", s.step.ID).WithDetail("agent", s.step.AgentName)
	if n, ok := fe.Details["attempts"]; ok {
		failed = failed.WithDetail("attempts", n)
	}
	return failed
}

// decodeOutput charges an agent's output to the run's data budget and
// decodes it (none is null).
func decodeOutput(rc *op.RunContext, s *agenthttp.WorkflowStep, out json.RawMessage) (any, error) {
	if len(out) == 0 {
		return nil, nil
	}
	if rc.Budget != nil {
		if err := rc.Budget.Charge(rc.OperationID, int64(len(out))); err != nil {
			return nil, err
		}
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fault.New(fault.Upstream, "step %q (agent %q): the agent's output is not JSON", s.ID, s.AgentName).
			WithDetail("step", s.ID).WithDetail("agent", s.AgentName)
	}
	return v, nil
}

// outputPath is where step id's output is written: /workflow/<id> (a step
// id is letters, digits, '_' and '-', and never "workflow").
func outputPath(id string) a2e.Path {
	return a2e.Path{Root: a2e.RootWorkflow, Segments: []a2e.Segment{{Key: id}}}
}

// positionOf is the engine's position of the top-level step at index i.
func positionOf(i int) string { return strconv.Itoa(i) }

func codecMessage(err error) string {
	var ae *agenthttp.Error
	if errors.As(err, &ae) {
		return trimCodec(ae)
	}
	return fault.From(err).Message
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
