package a2aserver

import (
	"context"
	"errors"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/store"
)

// errStopped ends following a run whose stream's reader went away.
var errStopped = errors.New("the stream's reader stopped")

// SendStreamingMessage starts a task and streams it (events).
func (h *handler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	id, err := h.start(ctx, req)
	if err != nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
	}
	return h.events(ctx, id)
}

// SubscribeToTask streams a task from now on (events).
func (h *handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return h.events(ctx, req.ID)
}

// events is a task's stream: the task as it is, then a WORKING status
// update when its run starts, then, once the run is final, the agent's
// output as an artifact update (when it succeeded) and the final status
// update. The run's frames are followed through the run service, so the
// stream follows a run on any gateway, and one that outlived a restart.
func (h *handler) events(ctx context.Context, id a2a.TaskID) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		r, err := h.run(ctx, id)
		if err != nil {
			yield(nil, err)
			return
		}
		task := taskOf(r)
		if !yield(task, nil) || task.Status.State.Terminal() {
			return
		}
		state := task.Status.State
		err = h.s.cfg.Runs.Follow(ctx, h.p, string(id), 0, func(f execution.Frame) error {
			if f.Final || state != a2a.TaskStateSubmitted {
				return nil
			}
			state = a2a.TaskStateWorking
			if !yield(a2a.NewStatusUpdateEvent(task, state, nil), nil) {
				return errStopped
			}
			return nil
		})
		switch {
		case errors.Is(err, errStopped):
			return
		case err != nil:
			yield(nil, a2aError(err))
			return
		}
		if r, err = h.settled(ctx, id); err != nil {
			yield(nil, err)
			return
		}
		if r.Status == store.StatusSuccess {
			art := &a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: artifactOf(r.Output), LastChunk: true}
			if !yield(art, nil) {
				return
			}
		}
		final := taskOf(r)
		yield(&a2a.TaskStatusUpdateEvent{TaskID: final.ID, ContextID: final.ContextID, Status: final.Status, Metadata: final.Metadata}, nil)
	}
}
