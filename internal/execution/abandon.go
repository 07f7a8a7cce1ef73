package execution

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// abandonGrace is how long past its budget a synchronous execution of
// another gateway may still be storing its result.
const abandonGrace = time.Minute

// abandonSync takes over a synchronous run found running at start-up. Of a
// kind that checkpoints its synchronous runs (Kind.SyncResumes) it is
// queued and resumes after its last checkpoint; otherwise it is not resumed
// (it keeps no checkpoint, and its caller lost the answer): it ends failed,
// and a resubmission of its client id answers with that. A process alone
// with its store (SharedPoll 0) ran it itself before it stopped, so it acts
// now; gateways sharing the store wait until its budget (and abandonGrace)
// is over, since another one may be running it still.
func (m *Manager) abandonSync(ctx context.Context, e store.Execution, k Kind) {
	act := m.failAbandoned
	if k.SyncResumes {
		act = m.resumeAbandoned
	}
	if m.cfg.SharedPoll <= 0 {
		act(ctx, e)
		return
	}
	started := e.CreatedAt
	if e.StartedAt != nil {
		started = *e.StartedAt
	}
	budget := time.Duration(e.BudgetMs) * time.Millisecond
	if budget <= 0 {
		budget = m.cfg.Engine.MaxExecutionTime
	}
	wait := started.Add(budget + abandonGrace).Sub(m.cfg.Clock.Now())
	m.workers.Add(1)
	go func() {
		defer m.workers.Done()
		if m.cfg.Clock.Sleep(ctx, max(wait, 0)) == nil {
			act(ctx, e)
		}
	}()
}

// failAbandoned stores e as failed unless it finished meanwhile (the store's
// status guard keeps a final record as it is).
func (m *Manager) failAbandoned(ctx context.Context, e store.Execution) {
	if cur, err := m.cfg.Store.GetExecution(ctx, e.AccountID, e.ID); err == nil && cur.Status != store.StatusRunning {
		return // it ended meanwhile, in the gateway that ran it
	}
	fe := fault.New(fault.Unavailable, "the server stopped while this synchronous execution ran; synchronous executions are not resumed").
		WithSuggestions("Send the workflow again with a new executionId, or run it with async=true to have it resumed after a restart")
	res := &engine.Result{ExecutionID: e.ID, Status: engine.StatusFailed, Errors: []fault.Object{fe.Object()}}
	if err := m.finishResult(ctx, m.endedProgram(ctx, e), e, res); err != nil {
		m.log.Warn("interrupted synchronous execution not ended", "executionId", e.ID, "error", fault.From(err))
		return
	}
	m.log.Info("interrupted synchronous execution ended failed", "executionId", e.ID)
}

// resumeAbandoned queues e, a synchronous run of a kind that checkpoints
// them, unless it finished meanwhile: it resumes after its last checkpoint.
func (m *Manager) resumeAbandoned(ctx context.Context, e store.Execution) {
	if cur, err := m.cfg.Store.GetExecution(ctx, e.AccountID, e.ID); err == nil && cur.Status != store.StatusRunning {
		return
	}
	if err := m.enqueue(ctx, e); err != nil {
		m.log.Warn("interrupted synchronous run not queued to resume", "executionId", e.ID, "error", fault.From(err))
	}
}
