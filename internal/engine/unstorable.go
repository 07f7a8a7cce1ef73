package engine

import (
	"context"
	"errors"

	"github.com/sluicehq/sluice/internal/fault"
)

// An execution whose checkpoint is over the store's limit can never be
// resumed, and saving it again after every step would only fail again: it
// fails at once. The Checkpointer says so with an error of kind TooLarge;
// any other save error is transient and the execution goes on.

// errUnstorable cancels the steps still running when a checkpoint turned out
// too large to store.
var errUnstorable = errors.New("the execution's state is over the stored limit")

// stoppedEarly reports whether ctx ended because something else halted the
// execution (a sibling iteration, a state too large to store) rather than
// its caller or its deadline.
func stoppedEarly(ctx context.Context) bool {
	cause := context.Cause(ctx)
	return errors.Is(cause, errSiblingHalted) || errors.Is(cause, errUnstorable)
}

// tooLarge returns err as the permanent save failure it is, or nil.
func tooLarge(err error) *fault.Error {
	if fe, ok := fault.As(err); ok && fe.Kind == fault.TooLarge {
		return fe
	}
	return nil
}

// markUnstorable records fe as the execution's failure (the first time) and
// stops its running steps.
func (ex *execution) markUnstorable(fe *fault.Error) {
	ex.mu.Lock()
	first := ex.unstorable == nil
	if first {
		ex.unstorable = fe
		ex.errs = append(ex.errs, fe.Object())
	}
	ex.mu.Unlock()
	if !first {
		return
	}
	ex.logger.Error("checkpoint over the stored limit: the execution fails", "error", fe)
	if ex.stop != nil {
		ex.stop(errUnstorable)
	}
}

// unstorableErr is the recorded failure, or nil.
func (ex *execution) unstorableErr() *fault.Error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.unstorable
}

// slim drops the data of a checkpoint that was over the stored limit,
// keeping what the final record of a failed execution needs: its status,
// errors, counts and times. Its data is gone, so nothing resumes from it.
func (cp *Checkpoint) slim() {
	cp.Workflow, cp.Input, cp.Results = map[string]any{}, nil, map[string]any{}
	cp.Outputs, cp.Decisions, cp.State, cp.Overlays, cp.ResultMarks = nil, nil, nil, nil, nil
	cp.Waiting = nil
}
