package execution

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Answer gives p's answer to the question one of p's waiting runs asks (a
// capability's prompt or decision), and runs it on from its checkpoint while
// the caller waits. The record moves from waiting to running before the run
// goes on, and the store moves it only from waiting: of two answers at once,
// one runs and the other is a Conflict. A wrong answer (AnswerChecker) is
// refused and the run keeps waiting.
func (m *Manager) Answer(ctx context.Context, p *account.Principal, id string, answer json.RawMessage, onFrame func(*e2a.Response)) (*Outcome, error) {
	e, err := m.cfg.Store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if e.Status != store.StatusWaiting {
		return nil, fault.New(fault.Conflict, "run %s is %s, not waiting for an answer", id, e.Status).WithDetail("status", string(e.Status))
	}
	k, err := m.kind(e.Kind)
	if err != nil {
		return nil, err
	}
	prog, err := k.Compile(ctx, p, e)
	if err != nil {
		return nil, err
	}
	if c, ok := prog.(AnswerChecker); ok {
		if err := c.CheckAnswer(e, answer); err != nil {
			return nil, err
		}
	}
	cp, err := m.loadCheckpoint(ctx, prog, e)
	if err != nil {
		return nil, err
	}
	release, err := m.acquire(p)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := m.cfg.Store.UpdateExecution(ctx, p.ID, id, store.ExecutionUpdate{Status: store.StatusRunning}); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	m.track(id, cancel)
	defer m.untrack(id)
	r := m.newRecorder(id, p.ID, k.Method, 0, false, onFrame)
	// The budget is the checkpoint's: what the run had left when it asked.
	res := m.durable.Resume(runCtx, prog.Plan(), cp, engine.ResumeOptions{Answer: answer, OnEvent: r.event,
		MaxDataBytes: p.Limits.MaxDataBytes})
	return m.complete(ctx, prog, e, res, r)
}
