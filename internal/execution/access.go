package execution

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// errCancelled is the cause of a context cancelled by execution.cancel.
var errCancelled = errors.New("cancelled by the caller")

// errCancelledElsewhere is the cause of a context cancelled because its
// record was cancelled through another process, which wrote the final frame.
var errCancelledElsewhere = errors.New("cancelled through another gateway")

// Get returns one of p's executions; another account's is NotFound.
func (m *Manager) Get(ctx context.Context, p *account.Principal, id string) (View, error) {
	e, err := m.cfg.Store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return View{}, err
	}
	return viewOf(e), nil
}

// List pages through p's A2E executions, newest first. Capability runs and
// agent workflow runs share the store's table but have lists of their own,
// so q.Kind is always A2E: pages are full, and a run never shows up as an
// execution this manager would not run or cancel.
func (m *Manager) List(ctx context.Context, p *account.Principal, q store.ExecutionQuery) ([]Summary, string, error) {
	q.Kinds = []string{store.KindA2E}
	execs, next, err := m.cfg.Store.ListExecutions(ctx, p.ID, q)
	if err != nil {
		return nil, "", err
	}
	out := make([]Summary, len(execs))
	for i, e := range execs {
		out[i] = summaryOf(e)
	}
	return out, next, nil
}

// Cancel ends one of p's A2E executions that has not finished (CancelRun,
// for a run of any kind). A run of another kind is a Conflict naming the
// cancel of its own API, as that API's callers expect.
func (m *Manager) Cancel(ctx context.Context, p *account.Principal, id string) (View, error) {
	e, err := m.cfg.Store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return View{}, err
	}
	if e.Kind != store.KindA2E {
		return View{}, notA2E(e)
	}
	e, err = m.cancel(ctx, e)
	if err != nil {
		return View{}, err
	}
	return viewOf(e), nil
}

// CancelRun ends one of the account's runs, of any kind, that has not finished, and
// returns its record. A running one in this process is stopped at once; its
// record is final from now on, so a run elsewhere cannot overwrite it, and
// the process running it stops at its next look (Config.SharedPoll). A
// finished run is a Conflict naming its status.
func (m *Manager) CancelRun(ctx context.Context, accountID, id string) (store.Execution, error) {
	e, err := m.cfg.Store.GetExecution(ctx, accountID, id)
	if err != nil {
		return store.Execution{}, err
	}
	return m.cancel(ctx, e)
}

func (m *Manager) cancel(ctx context.Context, e store.Execution) (store.Execution, error) {
	if e.Status.Final() {
		return store.Execution{}, fault.New(fault.Conflict, "%s %s is already %s", kindNoun(e.Kind), e.ID, e.Status).
			WithDetail("status", string(e.Status))
	}
	prog := m.endedProgram(ctx, e)
	s, err := m.settle(prog, cancelledResult(e))
	if err != nil {
		return store.Execution{}, err
	}
	err = m.cfg.Store.UpdateExecution(ctx, e.AccountID, e.ID, store.ExecutionUpdate{Status: store.StatusCancelled, Result: s.result, Errors: s.errs})
	if fe, ok := fault.As(err); ok && fe.Kind == fault.Conflict {
		// Final meanwhile: it finished, or another cancel came first, and
		// whoever made it final wrote its final frame.
		if cur, gerr := m.cfg.Store.GetExecution(ctx, e.AccountID, e.ID); gerr == nil {
			return store.Execution{}, fault.New(fault.Conflict, "%s %s is already %s", kindNoun(e.Kind), e.ID, cur.Status).
				WithDetail("status", string(cur.Status))
		}
	}
	if err != nil {
		return store.Execution{}, err
	}
	m.finished(store.StatusCancelled)
	if e.Status == store.StatusWaiting && m.cfg.CancelledWaiting != nil {
		// Nothing runs to stop, but what it waits on may: a remote agent's
		// task that asked for input.
		if cp, err := m.loadCheckpoint(ctx, prog, e); err == nil && cp.Waiting != nil {
			m.cfg.CancelledWaiting(context.WithoutCancel(ctx), e.AccountID, cp.Waiting.Request)
		}
	}
	// The run is stopped under the lock its runner lets go of it under
	// (letGo), so exactly one of the two writes the final frame: the run, when
	// it still held the execution, else this call.
	m.mu.Lock()
	cancel, running := m.running[e.ID]
	if running {
		cancel(errCancelled)
	}
	m.mu.Unlock()
	cur, err := m.cfg.Store.GetExecution(ctx, e.AccountID, e.ID)
	if err != nil {
		return store.Execution{}, err
	}
	if !running {
		m.completeCancelled(ctx, cur)
	}
	return cur, nil
}

// kindNoun names a run of kind in a message.
func kindNoun(kind string) string {
	switch kind {
	case store.KindCapability:
		return "capability run"
	case store.KindAgentWorkflow:
		return "agent workflow run"
	}
	return "execution"
}

// cancelledResult is the final result of e cancelled now: what it had done.
func cancelledResult(e store.Execution) *engine.Result {
	res := &engine.Result{ExecutionID: e.ID, Status: engine.StatusCancelled}
	if len(e.Result) > 0 && e.Kind == store.KindA2E {
		v := viewOf(e)
		res.Errors, res.DurationMs = v.Errors, v.DurationMs
		// Cancelling is rare and the results a run had are small next to
		// what it may still hold: decoded here, as the result is rebuilt.
		if err := json.Unmarshal(v.Results, &res.Results); err != nil {
			res.Results = map[string]any{}
		}
	}
	return res
}

// completeCancelled writes the final frame of e, cancelled, after the frames
// already stored: its stored result.
func (m *Manager) completeCancelled(ctx context.Context, e store.Execution) {
	if base, err := m.storedFrames(ctx, e.ID); err == nil {
		m.newRecorder(e.ID, e.AccountID, m.method(e.Kind), base, true, nil).complete(json.RawMessage(e.Result))
	}
}

// method is the method a run of kind answers.
func (m *Manager) method(kind string) string {
	if k, err := m.kind(kind); err == nil {
		return k.Method
	}
	return e2a.MethodWorkflowExecute
}

// letGo stops tracking a run that ends without its final frame (it parked)
// and reports whether a cancel reached it first: then its final frame is the
// run's to write, since Cancel left it to the run.
func (m *Manager) letGo(id string, runCtx context.Context) (cancelled bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.running, id)
	return errors.Is(context.Cause(runCtx), errCancelled)
}

// Frame is one frame of an execution's stream: its sequence in the store
// (from 1; an SSE event id) and its JSON.
type Frame struct {
	Seq   int64
	Data  []byte
	Final bool
}

// Follow sends p's execution's frames after afterSeq, first those stored, then
// live ones as they are stored, until the final frame or ctx's end.
func (m *Manager) Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(Frame) error) error {
	if _, err := m.cfg.Store.GetExecution(ctx, p.ID, id); err != nil {
		return err
	}
	last := afterSeq
	for {
		sub := m.hub.subscribe(id)
		done, err := m.replay(ctx, id, &last, send)
		if err == nil && !done {
			// A finished execution whose final frame was not stored (the store
			// failed then) has nothing more to send.
			var e store.Execution
			if e, err = m.cfg.Store.GetExecution(ctx, p.ID, id); err == nil && e.Status.Final() {
				if done, err = m.replay(ctx, id, &last, send); err == nil && !done {
					if last == 0 {
						// A synchronous execution stores no frames: its one
						// frame is the final one, made from the record.
						err = m.sendRecorded(e, send)
					} else {
						err = m.awaitFinal(ctx, id, sub, &last, send)
					}
				}
				if err == nil {
					done = true
				}
			}
		}
		if err != nil || done {
			m.hub.unsubscribe(id, sub)
			return err
		}
		done, err = m.live(ctx, id, sub, &last, send)
		m.hub.unsubscribe(id, sub)
		if err != nil || done {
			return err
		}
		// The subscription lagged and was cut: read the store again.
	}
}

// finalGrace bounds the wait for the final frame of an execution whose
// record is final already: Cancel stores the record first, so that no run
// can overwrite it, and the frame just after.
const finalGrace = 2 * time.Second

// awaitFinal sends the final frame of an execution whose record is final,
// once it is written: from sub when this process writes it, else from the
// store at the end of finalGrace. A final frame that never comes (its store
// failed) ends the stream without it.
func (m *Manager) awaitFinal(ctx context.Context, id string, sub *subscription, last *int64, send func(Frame) error) error {
	t := time.NewTimer(finalGrace)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			_, err := m.replay(ctx, id, last, send)
			return err
		case f, ok := <-sub.ch:
			if !ok {
				_, err := m.replay(ctx, id, last, send)
				return err
			}
			if f.Seq <= *last {
				continue
			}
			if err := send(Frame{Seq: f.Seq, Data: f.Data, Final: f.Final}); err != nil {
				return err
			}
			*last = f.Seq
			if f.Final {
				return nil
			}
		}
	}
}

// runsHere reports whether id runs in this process now.
func (m *Manager) runsHere(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.running[id]
	return ok
}

// replay sends stored frames after *last; done when the final one was sent.
func (m *Manager) replay(ctx context.Context, id string, last *int64, send func(Frame) error) (bool, error) {
	for {
		evs, err := m.cfg.Store.ListEvents(ctx, id, *last, store.MaxPageSize)
		if err != nil {
			return false, err
		}
		for _, ev := range evs {
			final := isFinalFrame(ev.Data)
			if err := send(Frame{Seq: ev.Seq, Data: ev.Data, Final: final}); err != nil {
				return false, err
			}
			*last = ev.Seq
			if final {
				return true, nil
			}
		}
		if len(evs) < store.MaxPageSize {
			return false, nil
		}
	}
}

// live sends subscribed frames after *last; done at the final one. It
// returns (false, nil) when the subscription lagged.
func (m *Manager) live(ctx context.Context, id string, sub *subscription, last *int64, send func(Frame) error) (bool, error) {
	// An execution running in another gateway publishes nothing here: look
	// in the store every SharedPoll instead (not done: the caller replays).
	// Whether it runs here is asked at every tick, not once: an execution
	// that parks here may resume on another gateway, and one that runs
	// elsewhere may resume here.
	var poll <-chan time.Time
	if m.cfg.SharedPoll > 0 {
		t := time.NewTicker(m.cfg.SharedPoll)
		defer t.Stop()
		poll = t.C
	}
	// A follower that has heard nothing for liveRecheck reads the store
	// again even when the run is here: a frame stored while the follower
	// subscribed, or the final frame of a cancel that raced its first
	// replay, is never waited for longer than that.
	recheck := time.NewTimer(liveRecheck)
	defer recheck.Stop()
	for {
		select {
		case <-ctx.Done():
			return true, nil
		case <-poll:
			if !m.runsHere(id) {
				return false, nil
			}
		case <-recheck.C:
			return false, nil
		case f, ok := <-sub.ch:
			recheck.Reset(liveRecheck)
			if !ok {
				return false, nil
			}
			if f.Seq <= *last {
				continue
			}
			if err := send(Frame{Seq: f.Seq, Data: f.Data, Final: f.Final}); err != nil {
				return false, err
			}
			*last = f.Seq
			if f.Final {
				return true, nil
			}
		}
	}
}

// liveRecheck is how long a live follower waits for a frame before it
// reads the store again.
const liveRecheck = 5 * time.Second

// isFinalFrame reports whether a stored frame is its stream's last.
func isFinalFrame(data []byte) bool {
	var f struct {
		IsFinal bool `json:"is_final"`
	}
	return json.Unmarshal(data, &f) == nil && f.IsFinal
}

// sendRecorded sends the final frame of a finished execution that stored no
// frames (a synchronous one), built from its record: sequence 0, e2a.complete
// with the stored execute response.
func (m *Manager) sendRecorded(e store.Execution, send func(Frame) error) error {
	result := any(json.RawMessage(e.Result))
	if len(e.Result) == 0 {
		result = viewOf(e)
	}
	frame, err := RecordedFrame(e, m.method(e.Kind), result)
	if err != nil {
		return err
	}
	return send(Frame{Seq: 1, Data: frame, Final: true})
}

// RecordedFrame encodes the one frame of a finished run e that stored no
// frames (internal/runs sends it for the kinds that store none): the
// e2a.complete answering the request that started it (request_id the run's
// id, method the one that started it, user the account), stamped when the
// run finished, whose result is the run as its record says.
func RecordedFrame(e store.Execution, method string, result any) ([]byte, error) {
	at := e.CreatedAt
	if e.FinishedAt != nil {
		at = *e.FinishedAt
	}
	var frame []byte
	sink := e2a.SinkFunc(func(r *e2a.Response) error {
		b, err := e2a.AppendResponse(nil, r)
		frame = b
		return err
	})
	env := e2a.NewEnvelope()
	env.RequestID, env.Method, env.UserID = e.ID, method, e.AccountID
	w, err := e2a.NewStreamWriter(env, sink, e2a.StreamOptions{Now: func() time.Time { return at }})
	if err != nil {
		return nil, err
	}
	if err := w.Complete(result); err != nil {
		return nil, err
	}
	return frame, nil
}
