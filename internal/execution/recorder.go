package execution

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// eventDelta is the e2a.chunk delta of an execution's progress frame: the
// engine event's fields (as engine.Event's JSON names them), with "type":
// "execution.event" so a reader of mixed chunks can tell them apart.
func eventDelta(ev engine.Event) map[string]any {
	d := map[string]any{"type": "execution.event", "kind": string(ev.Kind), "time": ev.Time.UTC().Format(time.RFC3339Nano),
		"executionId": ev.ExecutionID}
	set := func(k string, v any, ok bool) {
		if ok {
			d[k] = v
		}
	}
	set("operationId", ev.OperationID, ev.OperationID != "")
	set("operation", ev.Operation, ev.Operation != "")
	set("position", ev.Position, ev.Position != "")
	if ev.Iteration != nil {
		d["iteration"] = *ev.Iteration
	}
	set("attempt", ev.Attempt, ev.Attempt != 0)
	set("delayMs", ev.DelayMs, ev.DelayMs != 0)
	set("durationMs", ev.Duration, ev.Duration != 0)
	set("cached", true, ev.Cached)
	set("resumed", true, ev.Resumed)
	set("status", string(ev.Status), ev.Status != "")
	set("reason", ev.Reason, ev.Reason != "")
	if ev.Error != nil {
		e := map[string]any{"type": ev.Error.Type, "message": ev.Error.Message}
		if ev.Error.OperationID != "" {
			e["operationId"] = ev.Error.OperationID
		}
		if len(ev.Error.Details) > 0 {
			e["details"] = ev.Error.Details
		}
		if len(ev.Error.Suggestions) > 0 {
			s := make([]any, len(ev.Error.Suggestions))
			for i, x := range ev.Error.Suggestions {
				s[i] = x
			}
			e["suggestions"] = s
		}
		d["error"] = e
	}
	return d
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

	mu  sync.Mutex
	err error // the first store failure
}

func (m *Manager) newRecorder(id, accountID, method string, base int64, durable bool, onFrame func(*e2a.Response)) *recorder {
	r := &recorder{m: m, id: id, account: accountID, durable: durable, onFrame: onFrame, base: base}
	env := e2a.NewEnvelope()
	env.RequestID = id
	env.Method = method
	env.UserID = accountID
	r.w, _ = e2a.NewStreamWriter(env, r, e2a.StreamOptions{Now: m.cfg.Clock.Now}) // the request id is set
	return r
}

// event is the engine's OnEvent.
func (r *recorder) event(ev engine.Event) {
	if r.m.cfg.Audit != nil && (ev.Kind == engine.EventFinished || ev.Kind == engine.EventFailed) {
		r.m.cfg.Audit(r.account, r.id, ev)
	}
	if !r.durable && r.onFrame == nil {
		return // nobody would see the frame
	}
	kind, delta := e2a.DeltaCustom, any(eventDelta(ev))
	if ev.Kind == engine.EventChunk {
		// A step's progress (an agent's updates) is the chunk it reported:
		// text as text, the rest as their own objects.
		kind, delta = ev.DeltaKind, ev.Delta
	}
	if err := r.w.Chunk(kind, delta); err != nil {
		r.m.log.Warn("execution frame not written", "executionId", r.id, "error", err)
	}
}

// complete writes the final frame: e2a.complete with the execute response,
// whatever the workflow's own status (RESOLUTIONS).
func (r *recorder) complete(result any) { _ = r.w.Complete(result) }

// WriteFrame is the StreamWriter's sink. An asynchronous execution stores
// every frame at once. A synchronous one hands its frames to the caller's
// stream only: its caller has the answer already, and storing every step's
// frame would cost more than the run. Its record holds the result, from
// which a replay makes its one final frame (Manager.sendRecorded).
func (r *recorder) WriteFrame(f *e2a.Response) error {
	g := *f
	g.Sequence += r.base
	if r.onFrame != nil {
		r.onFrame(&g)
	}
	if !r.durable {
		return nil
	}
	b, err := e2a.AppendResponse(nil, &g)
	if err != nil {
		return fault.New(fault.Internal, "an execution frame could not be encoded").WithCause(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
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
	last, err := r.m.cfg.Store.AppendEvents(context.WithoutCancel(ctx), r.id, data...)
	if err != nil {
		if r.err == nil {
			r.err = err
			r.m.log.Warn("execution frames not stored", "executionId", r.id, "error", fault.From(err))
		}
		return
	}
	// Followers count frames by the store's sequence, which a replay reads:
	// the frames are published under it, should another writer of this
	// execution's frames have come between.
	for i := range frames {
		frames[i].Seq = last - int64(len(frames)-1-i)
	}
	r.m.hub.publish(r.id, frames...)
}
