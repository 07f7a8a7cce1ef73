package agentflow

import (
	"context"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Cancel ends the account's run that has not finished and returns it,
// through the run service: its record is final from now on, so no step
// starts anywhere, and a step in flight stops (at once in this process,
// else at the next look of the process running it). Steps completed keep
// their outputs. Another account's run, or an unknown id, is NotFound; a
// finished run is a Conflict naming its status.
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
	if _, err := r.Runs.CancelRun(ctx, accountID, runID); err != nil {
		if fault.KindOf(err) == fault.Conflict {
			if e, gerr := r.Store.GetExecution(ctx, accountID, runID); gerr == nil {
				return nil, alreadyFinal(runID, e.Status)
			}
		}
		return nil, err
	}
	r.log().Info("agent workflow run cancelled", "run", runID)
	return r.Get(ctx, accountID, runID)
}

func runNotFound(runID string) *fault.Error {
	return fault.New(fault.NotFound, "agent workflow run %q not found", runID)
}

func alreadyFinal(runID string, st store.Status) *fault.Error {
	return fault.New(fault.Conflict, "agent workflow run %s is already %s", runID, st).WithDetail("status", string(st))
}
