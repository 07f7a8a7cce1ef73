package engine

import (
	"strconv"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// childPos is the position of the j-th step under prefix.
func childPos(prefix string, j int) string {
	if prefix == "" {
		return strconv.Itoa(j)
	}
	return prefix + "/" + strconv.Itoa(j)
}

// runSteps runs ids in order under prefix and returns the last step's result.
func (ex *execution) runSteps(f *frame, prefix string, ids []string) (any, halt) {
	var last any
	for j, id := range ids {
		out, h := ex.runStep(f, childPos(prefix, j), id)
		if h != haltNone {
			return nil, h
		}
		last = out
	}
	return last, haltNone
}

// runStep runs one step, its branch or loop body included, and returns its
// result: the output written to its outputPath, or null when it has none.
func (ex *execution) runStep(f *frame, pos, id string) (any, halt) {
	if out, done := ex.isFinished(pos); done {
		return out, haltNone
	}
	st := ex.plan.Steps[id]
	if st == nil || st.Op == nil {
		fe := fault.Typed(fault.Invalid, fault.ExecutionError, "operation %q is not defined in this workflow", id).
			WithOp(id).WithSuggestions("Define it with an operationUpdate line, or remove it from the branch or loop that names it")
		return nil, ex.stepFailed(f, pos, &Step{ID: id}, fe, false)
	}
	if f.depth > ex.e.limits.MaxDepth {
		fe := fault.Typed(fault.Invalid, fault.ExecutionError,
			"operations nest deeper than %d levels at %q (a cycle through Conditional or Loop?)", ex.e.limits.MaxDepth, id).
			WithOp(id).WithDetail("maxDepth", ex.e.limits.MaxDepth)
		return nil, ex.stepFailed(f, pos, st, fe, true)
	}
	if n := ex.steps.Add(1); n > int64(ex.e.limits.MaxSteps) {
		fe := fault.Typed(fault.Invalid, fault.ExecutionError,
			"the execution ran more than %d steps", ex.e.limits.MaxSteps).
			WithOp(id).WithDetail("maxSteps", ex.e.limits.MaxSteps).
			WithSuggestions("Loop over fewer items, or split the work into several executions")
		return nil, ex.stepFailed(f, pos, st, fe, true)
	}

	if f.ctx.Err() != nil {
		// Checked between steps too, so steps that ignore their context cannot
		// carry a cancelled execution on.
		return nil, ex.interrupted(f, pos, st)
	}

	dec := ex.decision(pos)
	if dec == nil && ex.mayGiveWay(f) {
		return nil, ex.giveWayAt(pos)
	}

	start := ex.e.clock.Now()
	var out any
	cached := false
	if dec == nil {
		var h halt
		var fe *fault.Error
		out, cached, h, fe = ex.execute(f, pos, st)
		if h != haltNone {
			return nil, h
		}
		ex.executed.Add(1)
		if fe != nil {
			return nil, ex.stepFailed(f, pos, st, fe, false)
		}
		if !st.Spec.Control {
			if fe := ex.chargeOutput(st, out, cached); fe != nil {
				return nil, ex.stepFailed(f, pos, st, fe, true)
			}
		}
		dec, fe = ex.decide(f, st, out)
		if fe != nil {
			return nil, ex.stepFailed(f, pos, st, fe, false)
		}
		if dec != nil {
			ex.setDecision(pos, dec)
		}
	}
	if dec != nil {
		var h halt
		switch dec.Kind {
		case decisionBranch:
			_, h = ex.runSteps(f.nested(), pos, dec.Ops)
			name := dec.Name
			if name == "" {
				name = "none"
			}
			out = map[string]any{"branch": name}
		case decisionLoop:
			out, h = ex.runLoop(f, pos, st, dec)
		case decisionFork:
			h = ex.runFork(f, pos, st, dec)
			out = map[string]any{"branches": float64(len(dec.Branches))}
		}
		if h != haltNone {
			return nil, h
		}
	}
	return ex.stepDone(f, pos, st, out, start, cached, dec != nil)
}

// nested is the frame of a branch body.
func (f *frame) nested() *frame {
	c := *f
	c.depth++
	return &c
}

// decide turns a control output into a decision; other outputs give none.
func (ex *execution) decide(f *frame, st *Step, out any) (*Decision, *fault.Error) {
	switch b := out.(type) {
	case op.Branch:
		return &Decision{Kind: decisionBranch, Name: b.Name, Ops: b.Ops}, nil
	case *op.Branch:
		if b == nil {
			return nil, fault.New(fault.Internal, "operation %q returned an empty branch", st.ID).WithOp(st.ID)
		}
		return &Decision{Kind: decisionBranch, Name: b.Name, Ops: b.Ops}, nil
	case op.Fork:
		return &Decision{Kind: decisionFork, Branches: b.Branches}, nil
	case *op.Fork:
		if b == nil {
			return nil, fault.New(fault.Internal, "operation %q returned an empty fork", st.ID).WithOp(st.ID)
		}
		return &Decision{Kind: decisionFork, Branches: b.Branches}, nil
	case op.Iteration:
		return ex.loopDecision(f, st, b)
	case *op.Iteration:
		if b == nil {
			return nil, fault.New(fault.Internal, "operation %q returned an empty iteration", st.ID).WithOp(st.ID)
		}
		return ex.loopDecision(f, st, *b)
	}
	return nil, nil
}

// stepDone writes the step's output, records its result and checkpoints.
func (ex *execution) stepDone(f *frame, pos string, st *Step, out any, start time.Time, cached, children bool) (any, halt) {
	var result any
	ex.mu.Lock()
	if st.Output != nil {
		if err := f.v.set(*st.Output, out); err != nil {
			ex.mu.Unlock()
			fe := copyFault(fault.From(err))
			if fe.OperationID == "" {
				fe.OperationID = st.ID
			}
			return nil, ex.stepFailed(f, pos, st, fe, false)
		}
		result = out
	}
	ex.setResultLocked(f, st.ID, result)
	ex.markDoneLocked(pos, result, children)
	ex.succeeded++
	ex.mu.Unlock()
	ex.save(StatusRunning)
	if ex.onEvent != nil {
		ev := stepEvent(EventFinished, f, pos, st)
		ev.Duration = ex.e.clock.Now().Sub(start).Milliseconds()
		ev.Cached = cached
		ex.emit(ev)
	}
	return result, haltNone
}

// stepFailed records a failed step. Under onError continue (and unless fatal)
// the step counts as done and the execution goes on; otherwise it halts.
func (ex *execution) stepFailed(f *frame, pos string, st *Step, fe *fault.Error, fatal bool) halt {
	if fe.OperationID == "" {
		fe.OperationID = st.ID
	}
	if ex.data.Over() {
		// Over the data budget: no policy lets the execution go on, and its
		// data goes now rather than when the caller lets go of the result.
		fatal = true
		ex.dropData()
	}
	ex.logger.Warn("operation failed", "operationId", st.ID, "position", pos, "error", fe)
	ex.mu.Lock()
	ex.errs = append(ex.errs, fe.Object())
	ex.failed++
	stop := fatal || st.onError(ex.plan) == Stop
	if !stop {
		ex.markDoneLocked(pos, nil, true)
	}
	ex.mu.Unlock()
	if ex.onEvent != nil {
		ev := stepEvent(EventFailed, f, pos, st)
		obj := fe.Object()
		ev.Error = &obj
		ex.emit(ev)
	}
	if stop {
		return haltFailed
	}
	ex.save(StatusRunning)
	return haltNone
}

// execTimeout records that the execution ran out of time during st (once,
// however many concurrent iterations notice) and halts it.
func (ex *execution) execTimeout(f *frame, pos string, st *Step) halt {
	ex.mu.Lock()
	first := !ex.timedOut
	ex.timedOut = true
	ex.mu.Unlock()
	if !first {
		return haltFailed
	}
	fe := fault.Typed(fault.Timeout, fault.TimeoutError,
		"the execution exceeded its time limit of %d ms during operation %q", ex.budget.Milliseconds(), st.ID).
		WithOp(st.ID).WithDetail("maxExecutionTimeMs", ex.budget.Milliseconds()).
		WithSuggestions("Raise maxExecutionTime, or split the work into several executions")
	return ex.stepFailed(f, pos, st, fe, true)
}

// suspend records the first step that asked to wait and halts the execution.
func (ex *execution) suspend(f *frame, pos string, st *Step, s *op.Suspend) halt {
	ex.mu.Lock()
	first := ex.waiting == nil
	if first {
		ex.waiting = &WaitingStep{Position: pos, OperationID: st.ID, Reason: s.Reason, Request: s.Request}
	}
	ex.mu.Unlock()
	if first && ex.onEvent != nil {
		ev := stepEvent(EventWaiting, f, pos, st)
		ev.Reason = s.Reason
		ex.emit(ev)
	}
	return haltWaiting
}

// mayGiveWay says whether the execution should stop before the next step
// of f to give its worker to other waiting work: only where a Wait could
// park (a sequential frame of a checkpointed run), and only once a step of
// this run has run, so that every lease moves the execution on.
func (ex *execution) mayGiveWay(f *frame) bool {
	return ex.giveWay != nil && ex.e.cp != nil && f.mayPark() && ex.executed.Load() > 0 && ex.giveWay()
}

// giveWayAt parks the execution before the step at pos until now: its
// caller hands it back to the queue, which leases other work first.
func (ex *execution) giveWayAt(pos string) halt {
	now := ex.e.clock.Now()
	ex.mu.Lock()
	ex.parked = &Parked{Position: pos, Since: now, Until: now}
	ex.mu.Unlock()
	return haltParked
}

// park records that the step at pos has nothing to do until p.Until (no
// later than the budget's end, where the resumed run times out) and halts
// the execution, which finish checkpoints as running and parked.
func (ex *execution) park(f *frame, pos string, st *Step, p *op.Park) halt {
	now := ex.e.clock.Now()
	until := p.Until
	if end := now.Add(max(ex.remaining(), 0)); until.After(end) {
		until = end
	}
	ex.mu.Lock()
	ex.parked = &Parked{Position: pos, Since: now, Until: until}
	ex.mu.Unlock()
	if ex.onEvent != nil {
		ev := stepEvent(EventParked, f, pos, st)
		ev.DelayMs = until.Sub(now).Milliseconds()
		ex.emit(ev)
	}
	return haltParked
}
