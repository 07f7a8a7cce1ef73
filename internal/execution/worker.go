package execution

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/checkpoint"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Start queues again what a crash left unqueued, then starts the workers of
// asynchronous executions. They stop when ctx ends or Close is called.
func (m *Manager) Start(ctx context.Context) error {
	if m.cfg.Owner == "" {
		m.cfg.Owner = DefaultOwner()
	}
	ctx, m.stop = context.WithCancel(ctx)
	if err := m.recover(ctx); err != nil {
		m.stop()
		return err
	}
	for range m.cfg.Workers {
		m.workers.Add(1)
		go func() {
			defer m.workers.Done()
			m.work(ctx)
		}()
	}
	return nil
}

// DefaultOwner names this process in queue leases: host and pid.
func DefaultOwner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// Close stops taking queued executions and waits up to grace for running ones
// to finish; then it stops them, and they resume after a restart.
func (m *Manager) Close(grace time.Duration) {
	if m.stop == nil {
		return
	}
	m.stop()
	done := make(chan struct{})
	go func() { m.workers.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	m.mu.Lock()
	for _, cancel := range m.running {
		cancel(errShutdown)
	}
	m.mu.Unlock()
	<-done
}

// recover puts every unfinished asynchronous run, of every kind, back on
// the queue: queued ones whose queue entry a crash may have missed, running
// ones, which resume after their checkpoint. Putting an id twice adds
// nothing. A synchronous one still running was stopped by a crash: it
// resumes when its kind checkpoints synchronous runs, else it ends failed
// (abandonSync).
func (m *Manager) recover(ctx context.Context) error {
	for _, k := range m.kindsInOrder() {
		if err := m.recoverKind(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

func (m *Manager) recoverKind(ctx context.Context, k Kind) error {
	page := store.Page{Limit: 100}
	for {
		execs, next, err := m.cfg.Store.ListUnfinished(ctx, k.Name, page)
		if err != nil {
			return err
		}
		for _, e := range execs {
			if e.Status == store.StatusWaiting {
				continue // waits for an answer, not for a worker
			}
			if !e.Async && e.Status == store.StatusRunning {
				m.abandonSync(ctx, e, k)
				continue
			}
			if err := m.enqueue(ctx, e); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		page.Cursor = next
	}
}

// kindsInOrder lists the kinds by name, so recovery goes the same way on
// every start.
func (m *Manager) kindsInOrder() []Kind {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Kind, 0, len(m.kinds))
	for _, name := range slices.Sorted(maps.Keys(m.kinds)) {
		out = append(out, m.kinds[name])
	}
	return out
}

// work takes queued executions one at a time until ctx ends.
func (m *Manager) work(ctx context.Context) {
	for ctx.Err() == nil {
		items, err := m.cfg.Queue.Lease(ctx, Topic, m.cfg.Owner, 1, m.cfg.Lease)
		if err != nil {
			if ctx.Err() == nil {
				m.log.Warn("queue unavailable", "error", fault.From(err))
				_ = clock.Real{}.Sleep(ctx, time.Second)
			}
			continue
		}
		if len(items) == 0 {
			_ = m.cfg.Queue.Wait(ctx, Topic)
			continue
		}
		for _, it := range items {
			m.runQueued(ctx, it)
		}
	}
}

// runQueued runs (or resumes) one leased execution.
func (m *Manager) runQueued(ctx context.Context, it queue.Item) {
	m.busy.Add(1)
	defer m.busy.Add(-1)
	id := it.ID
	accountID, tc := fromQueuePayload(it.Payload)
	// The run continues the trace of the request that queued it (the
	// message's headers first, where the queue keeps them).
	ctx, span := telemetry.StartProcess(it.Trace.Or(tc).Context(ctx), it.Topic, it.ID, it.Attempts, it.EnqueuedAt)
	defer span.End()
	e, err := m.cfg.Store.GetExecution(ctx, accountID, id)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
			_ = m.cfg.Queue.Ack(ctx, it) // nothing to run
			return
		}
		m.log.Warn("queued execution unreadable", "executionId", id, "error", fault.From(err))
		_ = m.cfg.Queue.Nack(ctx, it, time.Second)
		return
	}
	if e.Status.Final() || e.Status == store.StatusWaiting {
		_ = m.cfg.Queue.Ack(ctx, it)
		return
	}
	k, err := m.kind(e.Kind)
	if err != nil {
		m.failQueued(ctx, it, e, err)
		return
	}
	p, err := m.cfg.Accounts.Principal(ctx, e.AccountID)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind == fault.Unavailable {
			// The account could not be read now: later, not a failure.
			m.log.Warn("queued execution's account unreadable", "executionId", id, "error", fault.From(err))
			_ = m.cfg.Queue.Nack(ctx, it, time.Second)
			return
		}
		m.failQueued(ctx, it, e, fault.New(fault.PermissionDenied, "the account can no longer run executions"))
		return
	}
	release, err := m.acquire(p)
	if err != nil {
		_ = m.cfg.Queue.Nack(ctx, it, 250*time.Millisecond) // at its limit: later
		return
	}
	defer release()
	// The account's grants now, not at submission: a revoked grant stops it.
	prog, err := k.Compile(ctx, p, e)
	if err != nil {
		m.failQueued(ctx, it, e, err)
		return
	}
	if e.Status == store.StatusQueued {
		if err := m.cfg.Store.UpdateExecution(ctx, e.AccountID, e.ID, store.ExecutionUpdate{Status: store.StatusRunning}); err != nil {
			if fe, ok := fault.As(err); ok && (fe.Kind == fault.Conflict || fe.Kind == fault.NotFound) {
				_ = m.cfg.Queue.Ack(ctx, it) // cancelled meanwhile, or gone
				return
			}
			// The store did not answer (or cannot say whether it wrote):
			// the run is still to do, so its item goes back, not away.
			m.log.Warn("queued execution not marked running", "executionId", id, "error", fault.From(err))
			_ = m.cfg.Queue.Nack(ctx, it, time.Second)
			return
		}
	}
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	m.track(e.ID, cancel)
	defer m.untrack(e.ID)
	// A cancel between the read above and the track missed this run: it
	// stored the final record and, finding nothing running, the final
	// frame. Read the record again now that a cancel finds the run; final,
	// the run stops here, and writes the final frame only if a cancel did
	// find it (letGo), so that the frame is written once.
	if cur, err := m.cfg.Store.GetExecution(ctx, e.AccountID, e.ID); err == nil && cur.Status.Final() {
		if m.letGo(e.ID, runCtx) {
			m.completeCancelled(context.WithoutCancel(ctx), cur)
		}
		_ = m.cfg.Queue.Ack(context.WithoutCancel(ctx), it)
		return
	}
	stopRenew := m.renew(runCtx, it)
	defer stopRenew()
	stopWatch := m.watchCancel(runCtx, e, cancel)
	defer stopWatch()

	spanCtx, runSpan := startRun(runCtx, e)
	s, err := m.resume(spanCtx, p.ID, k.Method, prog, e, p.Limits.MaxDataBytes)
	if s.res != nil {
		endRun(runSpan, s.res.Status)
	} else {
		telemetry.End(runSpan, err)
	}
	if err != nil {
		m.log.Error("execution could not resume", "executionId", id, "error", fault.From(err))
		_ = m.cfg.Queue.Nack(ctx, it, 5*time.Second)
		return
	}
	if !s.res.ParkedUntil.IsZero() {
		// A Wait: the checkpoint holds where it stands, and the queue item,
		// visible again at the wake-up time, is its durable timer. The worker
		// and the account's slot are free meanwhile.
		delay := min(max(s.res.ParkedUntil.Sub(m.cfg.Clock.Now()), 0), queue.MaxDelay)
		if err := m.cfg.Queue.Nack(context.WithoutCancel(ctx), it, delay); err != nil {
			m.log.Warn("parked execution not handed back; it resumes when its lease runs out", "executionId", id, "error", fault.From(err))
		}
		if m.letGo(e.ID, runCtx) {
			// Cancelled as it parked: the record is final already (Cancel
			// stored it), and the queue item finds it so and is dropped.
			if stored, err := m.cfg.Store.GetExecution(context.WithoutCancel(ctx), e.AccountID, e.ID); err == nil {
				m.completeCancelled(context.WithoutCancel(ctx), stored)
			}
		}
		return
	}
	if errors.Is(context.Cause(runCtx), errShutdown) {
		// Stopped by the shutdown: it stays running and resumes after the
		// restart. Hand it back now rather than when the lease runs out.
		_ = m.cfg.Queue.Nack(context.WithoutCancel(ctx), it, 0)
		return
	}
	if err := m.finish(context.WithoutCancel(ctx), prog, e, s); err != nil {
		m.log.Error("execution result not stored", "executionId", id, "error", fault.From(err))
		_ = m.cfg.Queue.Nack(context.WithoutCancel(ctx), it, time.Second)
		return
	}
	_ = m.cfg.Queue.Ack(context.WithoutCancel(ctx), it)
}

// resume runs e from its last checkpoint, or from the start when it has none,
// with the account's data budget, and settles its result for the record (a
// parked run is not settled: it is not finished).
func (m *Manager) resume(ctx context.Context, accountID, method string, prog Program, e store.Execution, maxData int64) (settled, error) {
	base, err := m.storedFrames(ctx, e.ID)
	if err != nil {
		return settled{}, err
	}
	r := m.newRecorder(e.ID, accountID, method, base, true, nil)
	var res *engine.Result
	cp, err := m.loadCheckpoint(ctx, prog, e)
	switch fe, _ := fault.As(err); {
	case err == nil:
		if cp.BudgetMs <= 0 {
			cp.BudgetMs = m.budget(e.BudgetMs).Milliseconds()
		}
		res = m.durable.Resume(ctx, prog.Plan(), cp, engine.ResumeOptions{OnEvent: r.event, ParkAfter: m.cfg.ParkAfter, GiveWay: m.giveWay(ctx, accountID), MaxDataBytes: maxData})
	case fe != nil && fe.Kind == fault.NotFound:
		input, err := storedInput(e)
		if err != nil {
			return settled{}, err
		}
		budget := m.budget(e.BudgetMs)
		res = m.durable.Run(ctx, prog.Plan(), engine.RunOptions{
			ExecutionID: e.ID, Account: accountID, SessionID: e.SessionID, Input: input,
			MaxExecutionTime: budget, MaxDataBytes: maxData, OnEvent: r.event, ParkAfter: m.cfg.ParkAfter,
			GiveWay: m.giveWay(ctx, accountID),
		})
	default:
		return settled{}, err
	}
	if !res.ParkedUntil.IsZero() {
		return settled{res: res}, nil
	}
	s, err := m.settle(prog, res)
	if err != nil {
		return settled{}, err
	}
	if cause := context.Cause(ctx); !errors.Is(cause, errShutdown) && !errors.Is(cause, errCancelledElsewhere) && !m.cancelledMeanwhile(ctx, e) {
		r.complete(s.result)
	}
	return s, nil
}

// cancelledMeanwhile reports whether e's record was cancelled through
// another process before this run ended and before this process's look at
// the record (watchCancel) saw it: that process wrote the final frame. Not
// asked of a process alone with its store, which sees its own cancels.
func (m *Manager) cancelledMeanwhile(ctx context.Context, e store.Execution) bool {
	if m.cfg.SharedPoll <= 0 {
		return false
	}
	cur, err := m.cfg.Store.GetExecution(context.WithoutCancel(ctx), e.AccountID, e.ID)
	return err == nil && cur.Status == store.StatusCancelled
}

// loadCheckpoint reads e's checkpoint: the engine's, or one its program
// reads from a format of its own (CheckpointReader). None is NotFound.
func (m *Manager) loadCheckpoint(ctx context.Context, prog Program, e store.Execution) (*engine.Checkpoint, error) {
	if r, ok := prog.(CheckpointReader); ok {
		raw, err := m.cfg.Store.LoadCheckpoint(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		cp, ok, err := r.ReadCheckpoint(e, raw)
		if err != nil || ok {
			return cp, err
		}
	}
	return (checkpoint.Stored{Store: m.cfg.Store}).Load(ctx, e.ID)
}

// budget is a queued run's budget: its record's, or for a record that
// has none (a run stored before it had one) the asynchronous default.
func (m *Manager) budget(ms int64) time.Duration {
	if ms <= 0 {
		return m.cfg.AsyncBudget
	}
	return time.Duration(ms) * time.Millisecond
}

// storedFrames counts the frames already stored for id.
func (m *Manager) storedFrames(ctx context.Context, id string) (int64, error) {
	var last int64
	for {
		evs, err := m.cfg.Store.ListEvents(ctx, id, last, store.MaxPageSize)
		if err != nil {
			return 0, err
		}
		if len(evs) == 0 {
			return last, nil
		}
		last = evs[len(evs)-1].Seq
	}
}

// failQueued ends a queued execution that cannot run with err.
func (m *Manager) failQueued(ctx context.Context, it queue.Item, e store.Execution, err error) {
	res := &engine.Result{ExecutionID: e.ID, Status: engine.StatusFailed, Errors: []fault.Object{fault.From(err).Object()}}
	prog := m.endedProgram(ctx, e)
	s, serr := m.settle(prog, res)
	if serr == nil {
		base, _ := m.storedFrames(ctx, e.ID)
		m.newRecorder(e.ID, e.AccountID, m.method(e.Kind), base, true, nil).complete(s.result)
		serr = m.finish(ctx, prog, e, s)
	}
	if serr != nil {
		// Not stored: the item goes back, so that the failure is stored
		// when the store answers, rather than the run left unfinished.
		m.log.Warn("execution failure not stored", "executionId", e.ID, "error", fault.From(serr))
		_ = m.cfg.Queue.Nack(ctx, it, time.Second)
		return
	}
	_ = m.cfg.Queue.Ack(ctx, it)
}

// watchCancel stops e's run when its record is cancelled through another
// process (every SharedPoll; not at all when SharedPoll is 0). That process
// stored the final result and frame; this one only stops, and sends its
// followers back to the store for that frame.
func (m *Manager) watchCancel(ctx context.Context, e store.Execution, cancel context.CancelCauseFunc) (stop func()) {
	if m.cfg.SharedPoll <= 0 {
		return func() {}
	}
	ctx, stopWatch := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(m.cfg.SharedPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				cur, err := m.cfg.Store.GetExecution(ctx, e.AccountID, e.ID)
				if err == nil && cur.Status == store.StatusCancelled {
					cancel(errCancelledElsewhere)
					m.hub.cut(e.ID)
					return
				}
			}
		}
	}()
	return stopWatch
}

// renew extends id's lease while it runs.
func (m *Manager) renew(ctx context.Context, it queue.Item) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(m.cfg.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := m.cfg.Queue.Extend(ctx, it, m.cfg.Lease); err != nil && ctx.Err() == nil {
					m.log.Warn("lease not renewed", "executionId", it.ID, "error", fault.From(err))
				}
			}
		}
	}()
	return cancel
}
