package agentflow

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// retryDelay is how long an item waits after a transient failure (the store
// or the queue unavailable) before it is tried again.
const retryDelay = time.Second

// Work takes workflow steps from the queue as owner, one at a time, until ctx
// ends; it then returns nil. Run as many workers (goroutines or processes)
// as wanted: a step is held by one worker at a time, and a step whose
// worker died is taken by another once its lease runs out.
func (r *Runner) Work(ctx context.Context, owner string) error {
	if r.Store == nil || r.Queue == nil || r.Invoker == nil {
		return fault.New(fault.Internal, "agentflow: the runner needs a store, a queue and an invoker")
	}
	for ctx.Err() == nil {
		items, err := r.Queue.Lease(ctx, Topic, owner, 1, r.lease())
		if err != nil {
			if ctx.Err() == nil {
				r.log().Warn("agent workflow queue unavailable", "error", fault.From(err))
				_ = clock.Real{}.Sleep(ctx, retryDelay)
			}
			continue
		}
		if len(items) == 0 {
			_ = r.Queue.Wait(ctx, Topic)
			continue
		}
		for _, it := range items {
			r.step(ctx, it)
		}
	}
	return nil
}

// transient marks a failure of sluice's own machinery (store, queue): the
// item goes back to the queue instead of failing the run.
type transient struct{ err error }

func (t transient) Error() string { return t.err.Error() }

// step handles one leased item to the end: acked when the step is done (or
// there is nothing to do), given back on a transient failure, and left to
// its lease when ctx ended (the process is stopping).
func (r *Runner) step(ctx context.Context, it queue.Item) {
	h := queue.Hold(ctx, r.Queue, it, r.lease(), func(err error) {
		r.log().Warn("agent workflow step lease not extended", "item", it.ID, "error", fault.From(err))
	})
	held, stop := h.Item, h.Stop
	err := r.runStep(ctx, it)
	stop()
	var tr transient
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || err != nil && ctx.Err() != nil:
		return // stopping: the lease runs out and another worker resumes
	case errors.As(err, &tr):
		r.log().Warn("agent workflow step put back", "item", it.ID, "error", fault.From(tr.err))
		if nerr := r.Queue.Nack(ctx, held(), retryDelay); nerr != nil {
			r.log().Warn("agent workflow step not put back", "item", it.ID, "error", fault.From(nerr))
		}
		return
	case err != nil:
		r.log().Warn("agent workflow step dropped", "item", it.ID, "error", fault.From(err))
	}
	// The step's work is recorded: ack even if ctx just ended, so that a
	// stopping worker does not leave a redelivery behind.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if aerr := r.Queue.Ack(actx, held()); aerr != nil {
		r.log().Warn("agent workflow step not acked", "item", it.ID, "error", fault.From(aerr))
	}
}

// runStep does the work of one item. A nil error means the item is done
// with (acked); transient asks for it back.
func (r *Runner) runStep(ctx context.Context, it queue.Item) error {
	var m item
	if err := json.Unmarshal(it.Payload, &m); err != nil || m.RunID == "" || m.StepID == "" {
		return fault.New(fault.Invalid, "item %q is not an agent workflow step", it.ID)
	}
	// Watched from before the record is read: a cancel after this read
	// finds the step in the in-flight table.
	w, stopWatch := r.watch(ctx, m.AccountID, m.RunID)
	defer stopWatch()
	e, err := r.Store.GetExecution(ctx, m.AccountID, m.RunID)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return nil // the run is gone
		}
		return transient{err}
	}
	if e.Status.Final() {
		return nil
	}
	wf, err := decodeDescriptor(e.Document)
	if err != nil {
		return r.fail(ctx, e, progress{}, m.StepID, fault.From(err))
	}
	s, ok := wf.Steps[m.StepID]
	if !ok {
		return r.fail(ctx, e, progress{}, m.StepID, fault.New(fault.Internal, "run %s has no step %q", e.ID, m.StepID))
	}
	p, err := r.loadProgress(ctx, e.ID)
	if err != nil {
		return transient{err}
	}
	if _, done := p.Outputs[m.StepID]; done {
		// Redelivered after the step was recorded (the worker stopped before
		// it acked): go on from there without calling the agent again.
		return r.advance(ctx, e, wf, s, p)
	}
	if want := nextPending(wf, p); want != m.StepID {
		// Not this step's turn: a stale item (its run moved on or is ahead
		// of it); the run's own items carry it forward.
		r.log().Warn("agent workflow step out of turn", "run", e.ID, "step", m.StepID, "expected", want)
		return nil
	}
	if e.Status == store.StatusQueued {
		if err := r.Store.UpdateExecution(ctx, e.AccountID, e.ID, store.ExecutionUpdate{Status: store.StatusRunning}); err != nil {
			if fault.KindOf(err) == fault.Conflict {
				return nil // became final meanwhile
			}
			return transient{err}
		}
	}
	rep := stepReport{runID: e.ID, stepID: s.ID, agent: s.AgentName}
	input, err := s.RenderInput(e.Input, p.Outputs)
	if err != nil {
		fe := fault.New(fault.Invalid, "step %q: %s", s.ID, codecMessage(err)).WithDetail("step", s.ID)
		return r.failReported(ctx, e, p, rep, fe)
	}
	if w.ctx.Err() != nil {
		return ctx.Err() // cancelled before the agent was called (nil), or stopping
	}
	rep.started = time.Now()
	r.report(ctx, rep, agenthttp.StepRunning, nil)
	out, err := r.Invoker.Invoke(w.ctx, s.AgentName, TaskID(e.ID, s.ID), input, e.ID)
	stopWatch()
	if ctx.Err() != nil {
		return ctx.Err() // stopping: the step runs again elsewhere, same task_id
	}
	if w.runFinal() || r.finalNow(ctx, e) {
		// Cancelled while the agent worked: whatever it answered is dropped.
		r.report(ctx, rep, agenthttp.StepFailed, cancelledMeta())
		return nil
	}
	if err != nil {
		fe := fault.From(err)
		failed := &fault.Error{Kind: fe.Kind, Type: fe.Type, Message: "step " + quote(s.ID) + " (agent " + quote(s.AgentName) + "): " + fe.Message}
		failed = failed.WithDetail("step", s.ID).WithDetail("agent", s.AgentName)
		if n, ok := fe.Details["attempts"]; ok {
			failed = failed.WithDetail("attempts", n)
		}
		return r.failReported(ctx, e, p, rep, failed)
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	p.Completed = append(p.Completed, s.ID)
	p.Outputs[s.ID] = out
	data, _ := json.Marshal(p)
	if err := r.Store.SaveCheckpoint(ctx, e.ID, data); err != nil {
		// The agent did the work but it is not recorded: the step runs again
		// with the same task_id, which the agent de-duplicates.
		return transient{err}
	}
	r.report(ctx, rep, agenthttp.StepCompleted, nil)
	return r.advance(ctx, e, wf, s, p)
}

// advance moves a run on after step s is recorded: the next step enqueued
// (the queue refuses a duplicate id still queued), or the run finished.
func (r *Runner) advance(ctx context.Context, e store.Execution, wf *agenthttp.Workflow, s *agenthttp.WorkflowStep, p progress) error {
	if s.NextStep == "" {
		if err := r.finish(ctx, e.AccountID, e.ID, store.StatusSuccess, p, "", nil); err != nil {
			return transient{err}
		}
		return nil
	}
	if _, done := p.Outputs[s.NextStep]; done {
		return nil // the next step is recorded: its own item carries the run on
	}
	if err := r.enqueue(ctx, e.AccountID, e.ID, s.NextStep); err != nil {
		return transient{err}
	}
	return nil
}

// failReported ends the run as failed at the reported step and, once that
// is recorded, reports the step FAILED (a transient failure brings the step
// back, so it is not reported yet).
func (r *Runner) failReported(ctx context.Context, e store.Execution, p progress, rep stepReport, cause *fault.Error) error {
	if err := r.fail(ctx, e, p, rep.stepID, cause); err != nil {
		return err
	}
	r.report(ctx, rep, agenthttp.StepFailed, failedMeta(cause))
	return nil
}

// fail ends the run as failed at step.
func (r *Runner) fail(ctx context.Context, e store.Execution, p progress, step string, cause *fault.Error) error {
	if err := r.finish(ctx, e.AccountID, e.ID, store.StatusFailed, p, step, cause); err != nil {
		return transient{err}
	}
	r.log().Info("agent workflow run failed", "run", e.ID, "step", step, "error", cause)
	return nil
}

// nextPending is the first step of the run order without an output.
func nextPending(wf *agenthttp.Workflow, p progress) string {
	for _, id := range wf.Order() {
		if _, ok := p.Outputs[id]; !ok {
			return id
		}
	}
	return ""
}

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
