package a2aserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// errStopped ends following a run whose stream's reader went away.
var errStopped = errors.New("the stream's reader stopped")

// SendStreamingMessage starts a task and streams it (follow).
func (h *handler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	id, err := h.startPushed(ctx, req)
	if err != nil {
		return failed(err)
	}
	return h.s.follow(ctx, h.p, id, h.reader(id), true)
}

// SubscribeToTask streams a task from now on (follow).
func (h *handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return h.s.follow(ctx, h.p, req.ID, h.reader(req.ID), false)
}

func failed(err error) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
}

// follow is a task's stream: the task as it is, then a WORKING status
// update when its run starts, then, once the run ends or waits for input,
// its artifacts as artifact updates and its last status update. A task that
// has ended already streams itself alone, or, for a message just sent
// (whole), with its artifacts and status too, so that a message's stream
// always ends with its status. The run's frames are followed through the
// run service (awaitEnd), so the stream follows a run on any gateway, and
// one that outlived a restart.
func (s *Server) follow(ctx context.Context, p *account.Principal, id a2a.TaskID, read taskReader, whole bool) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		task, err := read(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(task, nil) {
			return
		}
		if ended(task) {
			if whole {
				lastEvents(task, yield)
			}
			return
		}
		state := task.Status.State
		err = s.awaitEnd(ctx, p, id, read, func(f execution.Frame) error {
			if f.Final {
				return nil
			}
			if state == a2a.TaskStateSubmitted {
				state = a2a.TaskStateWorking
				if !yield(a2a.NewStatusUpdateEvent(task, state, nil), nil) {
					return errStopped
				}
			}
			if ev := progressEvent(task, f); ev != nil && !yield(ev, nil) {
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
		if task, err = settled(ctx, read); err != nil {
			yield(nil, err)
			return
		}
		lastEvents(task, yield)
	}
}

// lastEvents yields the end of task's stream: an artifact update per
// artifact, then its status update.
func lastEvents(task *a2a.Task, yield func(a2a.Event, error) bool) {
	for _, art := range task.Artifacts {
		if !yield(&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: art, LastChunk: true}, nil) {
			return
		}
	}
	yield(&a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status, Metadata: task.Metadata}, nil)
}

// awaitEnd sends the frames of id's run to onFrame until its final frame.
// It also reads the task every recheck and stops once the task has ended
// or waits for input: a run that parks for a decision sends no final
// frame, and a final frame the follower misses must not hold the stream.
func (s *Server) awaitEnd(ctx context.Context, p *account.Principal, id a2a.TaskID, read taskReader, onFrame func(execution.Frame) error) error {
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t := time.NewTicker(recheck)
		defer t.Stop()
		for {
			select {
			case <-fctx.Done():
				return
			case <-t.C:
				if task, err := read(fctx); err == nil && ended(task) {
					stop()
					return
				}
			}
		}
	}()
	err := s.cfg.Runs.Follow(fctx, p, string(id), 0, onFrame)
	if err != nil && fctx.Err() != nil && ctx.Err() == nil {
		return nil // stopped by the recheck
	}
	return err
}

// recheck is how often awaitEnd reads a followed task's record.
const recheck = time.Second

// ended: the task's stream has nothing more to say (terminal, or waiting
// for the caller's next message).
func ended(t *a2a.Task) bool {
	return t.Status.State.Terminal() || t.Status.State == a2a.TaskStateInputRequired
}

// progressEvent is the A2A event of a run's frame that carries a remote
// agent's progress (an e2a.chunk its step reported): text as a WORKING
// status update whose message is the text, a custom {"type":"artifact"}
// as an artifact update. Any other frame (the engine's own events) is nil.
func progressEvent(task *a2a.Task, f execution.Frame) a2a.Event {
	var frame struct {
		Kind string `json:"response_kind"`
		Body struct {
			DeltaKind string `json:"delta_kind"`
			Delta     any    `json:"delta"`
		} `json:"body"`
	}
	if json.Unmarshal(f.Data, &frame) != nil || frame.Kind != string(e2a.KindChunk) {
		return nil
	}
	switch d := frame.Body.Delta.(type) {
	case string:
		if frame.Body.DeltaKind != e2a.DeltaText || d == "" {
			return nil
		}
		return a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, &a2a.Message{ID: fmt.Sprintf("%s/progress/%d", task.ID, f.Seq),
			Role: a2a.MessageRoleAgent, TaskID: task.ID, ContextID: task.ContextID, Parts: a2a.ContentParts{a2a.NewTextPart(d)}})
	case map[string]any:
		if d["type"] != "artifact" {
			return nil
		}
		id, _ := d["artifactId"].(string)
		name, _ := d["name"].(string)
		var part *a2a.Part
		switch {
		case d["data"] != nil:
			part = a2a.NewDataPart(d["data"])
		case d["file"] != nil:
			part = a2a.NewDataPart(d["file"])
		default:
			return nil
		}
		return &a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID,
			Artifact: &a2a.Artifact{ID: a2a.ArtifactID("progress-" + id), Name: name, Parts: a2a.ContentParts{part}}}
	}
	return nil
}
