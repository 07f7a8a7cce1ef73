package engine

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"sync"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// The loop variables, top-level keys of /workflow.
const (
	varItem  = "item"
	varIndex = "index"
)

// errSiblingHalted cancels the other iterations of a concurrent loop when one
// of them halts.
var errSiblingHalted = errors.New("another iteration of the loop halted")

// loopDecision checks an Iteration and records the loop variables to restore.
func (ex *execution) loopDecision(f *frame, st *Step, it op.Iteration) (*Decision, *fault.Error) {
	if n, limit := len(it.Items), ex.e.limits.MaxLoopIterations; n > limit {
		return nil, fault.Typed(fault.Invalid, fault.DataError,
			"the loop has %d items; at most %d iterations are allowed", n, limit).
			WithOp(st.ID).WithDetail("count", n).WithDetail("limit", limit).
			WithSuggestions("Filter or slice the array first")
	}
	d := &Decision{Kind: decisionLoop, Ops: it.Body, Items: it.Items, Concurrency: it.Concurrency}
	if d.Items == nil {
		d.Items = []any{}
	}
	d.Concurrency = min(max(d.Concurrency, 1), ex.e.limits.MaxConcurrency)
	d.PrevItem, d.HasItem = f.v.top(varItem)
	d.PrevIndex, d.HasIndex = f.v.top(varIndex)
	return d, nil
}

// iterPos is the position of iteration k of the loop at pos.
func iterPos(pos string, k int) string { return pos + "/it" + strconv.Itoa(k) }

// runLoop runs the body once per item and returns the array of each
// iteration's last result, in input order.
func (ex *execution) runLoop(f *frame, pos string, st *Step, d *Decision) (any, halt) {
	if fe := ex.chargeLoopOutput(st, len(d.Items)); fe != nil {
		return nil, ex.stepFailed(f, pos, st, fe, true)
	}
	if d.Concurrency > 1 && len(d.Items) > 1 {
		return ex.runConcurrent(f, pos, st, d)
	}
	// The variables live in the loop's own model; restore what was there
	// before, even when the loop halts (a replay sets them again).
	defer func() {
		f.v.setTop(varItem, d.PrevItem, d.HasItem)
		f.v.setTop(varIndex, d.PrevIndex, d.HasIndex)
	}()
	outs := make([]any, len(d.Items))
	for k, item := range d.Items {
		ip := iterPos(pos, k)
		if out, done := ex.isFinished(ip); done {
			outs[k] = out
			continue
		}
		f.v.setTop(varItem, item, true)
		f.v.setTop(varIndex, float64(k), true)
		it := f.iteration(pos, k, f.v, f.ctx, false)
		last, h := ex.runSteps(it, ip, d.Ops)
		if h != haltNone {
			return nil, h
		}
		outs[k] = last
		ex.iterationDone(ip, last)
	}
	return outs, haltNone
}

// iteration is the frame of one iteration's body.
// loop is the position of the loop; concurrent marks a concurrent one.
func (f *frame) iteration(loop string, k int, v *view, ctx context.Context, concurrent bool) *frame {
	c := &frame{v: v, ctx: ctx, depth: f.depth + 1, iter: k,
		concIter: f.concIter, concLoop: f.concLoop, concurrent: f.concurrent || concurrent, forked: f.forked}
	if concurrent {
		c.concIter, c.concLoop = k, loop
	}
	return c
}

// runConcurrent runs up to d.Concurrency iterations at once, each on its own
// overlay of the data model. The first iteration to halt (a failure under
// onError stop, a suspension, a timeout) cancels the others; under onError
// continue a failed step does not halt its iteration, so the others go on.
func (ex *execution) runConcurrent(f *frame, pos string, st *Step, d *Decision) (any, halt) {
	ctx, cancel := context.WithCancelCause(f.ctx)
	defer cancel(nil)
	n := len(d.Items)
	outs := make([]any, n)
	done := make([]bool, n)
	sem := make(chan struct{}, d.Concurrency)
	var wg sync.WaitGroup
	var hmu sync.Mutex
	first := haltNone
	record := func(h halt) {
		hmu.Lock()
		if first == haltNone || first == haltAborted && h != haltAborted {
			first = h
		}
		hmu.Unlock()
		cancel(errSiblingHalted)
	}
launch:
	for k, item := range d.Items {
		ip := iterPos(pos, k)
		if out, ok := ex.isFinished(ip); ok {
			outs[k], done[k] = out, true
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break launch
		}
		wg.Go(func() {
			defer func() { <-sem }()
			v := ex.iterationView(f.v, ip)
			v.setTop(varItem, item, true)
			v.setTop(varIndex, float64(k), true)
			last, h := ex.runSteps(f.iteration(pos, k, v, ctx, true), ip, d.Ops)
			if h != haltNone {
				record(h)
				return
			}
			outs[k], done[k] = last, true
			ex.iterationDone(ip, last)
		})
	}
	wg.Wait()
	if first != haltNone {
		return nil, first
	}
	for k := range done {
		if !done[k] {
			// Not every iteration ran and none reported why: the context ended
			// while iterations were being started.
			return nil, ex.interrupted(f, pos, st)
		}
	}
	return outs, haltNone
}

// interrupted classifies an end of the frame's context noticed between steps
// of the loop st.
func (ex *execution) interrupted(f *frame, pos string, st *Step) halt {
	switch {
	case ex.userCtx.Err() != nil:
		return haltCancelled
	case stoppedEarly(f.ctx):
		return haltAborted
	}
	return ex.execTimeout(f, pos, st)
}

// iterationView is the model of a concurrent iteration: its checkpointed
// overlay when resuming, else a fresh overlay of the loop's model. It is
// registered so checkpoints include it until the iteration finishes.
func (ex *execution) iterationView(parent *view, ip string) *view {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var v *view
	if saved, ok := ex.savedOverlays[ip]; ok {
		delete(ex.savedOverlays, ip)
		// A copy: the model writes its top-level map in place, and that map
		// belongs to the caller's checkpoint.
		v = newView(datamodel.FromSnapshot(maps.Clone(saved), ex.input))
	} else {
		v = parent.overlay()
	}
	setKey(&ex.overlays, ip, v)
	ex.noteLocked(ip)
	return v
}

// iterationDone records a finished iteration and its output.
func (ex *execution) iterationDone(ip string, out any) {
	ex.mu.Lock()
	ex.markDoneLocked(ip, out, true)
	ex.mu.Unlock()
	ex.save(StatusRunning)
}
