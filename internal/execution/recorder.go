package execution

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// deltaEvent is the e2a.chunk delta of an execution's progress frames: the
// engine event under "event" (its kind), so a reader needs one key to switch on.
type deltaEvent struct {
	Type string `json:"type"` // "execution.event"
	engine.Event
}

// recorder turns one execution's engine events into its E2A frame stream
// (request_id = the execution id; sequence from 0 across restarts), stores
// the frames, and hands them on: to live subscribers once stored, and to the
// caller's own stream (a synchronous call over /api/v1/e2a) at once.
type recorder struct {
	m       *Manager
	id      string
	account string
	durable bool // store each frame at once (asynchronous executions)
	onFrame func(*e2a.Response)

	w    *e2a.StreamWriter
	base int64 // frames stored before this run (resume)

	mu      sync.Mutex
	pending []json.RawMessage // frames of a synchronous run, stored at its end
	final   bool
	err     error // the first store failure
}

func (m *Manager) newRecorder(id, accountID string, base int64, durable bool, onFrame func(*e2a.Response)) *recorder {
	r := &recorder{m: m, id: id, account: accountID, durable: durable, onFrame: onFrame, base: base}
	env := e2a.NewEnvelope()
	env.RequestID = id
	env.Method = e2a.MethodWorkflowExecute
	env.UserID = accountID
	r.w, _ = e2a.NewStreamWriter(env, r, e2a.StreamOptions{Now: m.cfg.Clock.Now}) // the request id is set
	return r
}

// event is the engine's OnEvent.
func (r *recorder) event(ev engine.Event) {
	if r.m.cfg.Audit != nil && (ev.Kind == engine.EventFinished || ev.Kind == engine.EventFailed) {
		r.m.cfg.Audit(r.account, r.id, ev)
	}
	_ = r.w.Chunk(e2a.DeltaCustom, deltaEvent{Type: "execution.event", Event: ev})
}

// complete writes the final frame: e2a.complete with the execute response,
// whatever the workflow's own status (RESOLUTIONS).
func (r *recorder) complete(result any) { _ = r.w.Complete(result) }

// WriteFrame is the StreamWriter's sink.
func (r *recorder) WriteFrame(f *e2a.Response) error {
	g := *f
	g.Sequence += r.base
	b, err := e2a.AppendResponse(nil, &g)
	if err != nil {
		return fault.New(fault.Internal, "an execution frame could not be encoded").WithCause(err)
	}
	if r.onFrame != nil {
		r.onFrame(&g)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g.IsFinal {
		r.final = true
	}
	if !r.durable {
		r.pending = append(r.pending, b)
		return nil
	}
	r.storeLocked(context.Background(), storedFrame{Seq: g.Sequence + 1, Data: b, Final: g.IsFinal})
	return nil
}

// storeLocked appends frames and publishes them. A store failure is logged
// once: progress frames are worth less than the execution they describe.
func (r *recorder) storeLocked(ctx context.Context, frames ...storedFrame) {
	if len(frames) == 0 {
		return
	}
	data := make([]json.RawMessage, len(frames))
	for i, f := range frames {
		data[i] = f.Data
	}
	if _, err := r.m.cfg.Store.AppendEvents(context.WithoutCancel(ctx), r.id, data...); err != nil {
		if r.err == nil {
			r.err = err
			r.m.log.Warn("execution frames not stored", "executionId", r.id, "error", fault.From(err))
		}
		return
	}
	r.m.hub.publish(r.id, frames...)
}

// flush stores the frames of a synchronous run, in one write.
func (r *recorder) flush(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	frames := make([]storedFrame, len(r.pending))
	for i, b := range r.pending {
		frames[i] = storedFrame{Seq: r.base + int64(i) + 1, Data: b, Final: r.final && i == len(r.pending)-1}
	}
	r.pending = nil
	r.storeLocked(ctx, frames...)
}
