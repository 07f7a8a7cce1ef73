package agentflow

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// A cancel is the run's execution record made final with status cancelled,
// as internal/execution cancels A2E executions: the store refuses to change
// a final record again, so it holds across processes and restarts with no
// flag of its own. Every worker reads the record before it invokes a step and
// leaves a final run alone; a step in flight is stopped by the Runner that
// holds it (at once when Cancel ran on that Runner, else at its next poll of
// the record), and a result that arrives anyway is discarded.

// DefaultCancelPoll is how often a worker reads the record of the run whose
// step it is running, to stop the step when the run was cancelled by another
// process.
const DefaultCancelPoll = 2 * time.Second

// minCancelPoll bounds the poll from below: one record read per step per
// interval is the whole cost.
const minCancelPoll = 10 * time.Millisecond

// errRunFinal is the cause of a step context ended because its run became
// final (cancelled) while the step ran.
var errRunFinal = errors.New("the run was cancelled")

func (r *Runner) cancelPoll() time.Duration {
	switch {
	case r.CancelPoll <= 0:
		return DefaultCancelPoll
	case r.CancelPoll < minCancelPoll:
		return minCancelPoll
	}
	return r.CancelPoll
}

// Cancel ends the account's run that has not finished and returns it. Steps
// completed keep their outputs; no further step starts anywhere. Another
// account's run, or an unknown id, is NotFound; a finished run is a Conflict
// naming its status.
func (r *Runner) Cancel(ctx context.Context, accountID, runID string) (*Run, error) {
	e, err := r.Store.GetExecution(ctx, accountID, runID)
	if err != nil {
		return nil, err
	}
	if e.Kind != store.KindAgentWorkflow {
		return nil, runNotFound(runID)
	}
	if e.Status.Final() {
		return nil, alreadyFinal(runID, e.Status)
	}
	p, err := r.loadProgress(ctx, runID)
	if err != nil {
		return nil, err
	}
	res := result{Outputs: p.Outputs, Output: json.RawMessage("null")}
	u := store.ExecutionUpdate{Status: store.StatusCancelled}
	u.Result, _ = json.Marshal(res)
	if err := r.Store.UpdateExecution(ctx, accountID, runID, u); err != nil {
		if fault.KindOf(err) == fault.Conflict {
			// Final meanwhile (its last step finished, or another cancel).
			if e, gerr := r.Store.GetExecution(ctx, accountID, runID); gerr == nil {
				return nil, alreadyFinal(runID, e.Status)
			}
		}
		return nil, err
	}
	r.stopInFlight(runID)
	r.log().Info("agent workflow run cancelled", "run", runID)
	return r.Get(ctx, accountID, runID)
}

func runNotFound(runID string) *fault.Error {
	return fault.New(fault.NotFound, "agent workflow run %q not found", runID)
}

func alreadyFinal(runID string, st store.Status) *fault.Error {
	return fault.New(fault.Conflict, "agent workflow run %s is already %s", runID, st).WithDetail("status", string(st))
}

// stopInFlight ends the context of every step of runID running on this
// Runner.
func (r *Runner) stopInFlight(runID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cancel := range r.inFlight[runID] {
		cancel(errRunFinal)
	}
}

// stepWatch is a step's context while its worker handles it: it ends when
// the run becomes final (see watch).
type stepWatch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// runFinal reports whether the step's context ended because its run became
// final.
func (w *stepWatch) runFinal() bool { return errors.Is(context.Cause(w.ctx), errRunFinal) }

// watch registers a step of runID on this Runner (so that Cancel here stops
// it at once) and polls the run's record every cancelPoll (so that a cancel
// from another process stops it too). stop ends both; it may be called more
// than once.
func (r *Runner) watch(ctx context.Context, accountID, runID string) (w *stepWatch, stop func()) {
	sctx, cancel := context.WithCancelCause(ctx)
	w = &stepWatch{ctx: sctx, cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	if r.inFlight == nil {
		r.inFlight = map[string]map[*stepWatch]context.CancelCauseFunc{}
	}
	if r.inFlight[runID] == nil {
		r.inFlight[runID] = map[*stepWatch]context.CancelCauseFunc{}
	}
	r.inFlight[runID][w] = cancel
	r.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(r.cancelPoll())
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-sctx.Done():
				return
			case <-t.C:
				e, err := r.Store.GetExecution(sctx, accountID, runID)
				switch {
				case err == nil && e.Status.Final(), fault.KindOf(err) == fault.NotFound:
					cancel(errRunFinal)
					return
				case err != nil && sctx.Err() == nil:
					// The store is down: the step goes on; the record is read
					// again before its result is kept.
					r.log().Warn("agent workflow run not polled", "run", runID, "error", fault.From(err))
				}
			}
		}
	}()
	return w, func() {
		w.once.Do(func() {
			close(w.done)
			w.wg.Wait()
			r.mu.Lock()
			delete(r.inFlight[runID], w)
			if len(r.inFlight[runID]) == 0 {
				delete(r.inFlight, runID)
			}
			r.mu.Unlock()
			cancel(nil)
		})
	}
}

// finalNow reads the run's record again: true when it is final (cancelled
// while its step ran), so the step's result must be discarded. A store
// failure answers false: what follows cannot change a final run anyway (its
// view is its stored result, and finishing it again is refused).
func (r *Runner) finalNow(ctx context.Context, e store.Execution) bool {
	cur, err := r.Store.GetExecution(ctx, e.AccountID, e.ID)
	if fault.KindOf(err) == fault.NotFound {
		return true
	}
	return err == nil && cur.Status.Final()
}
