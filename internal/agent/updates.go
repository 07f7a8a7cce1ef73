package agent

import (
	"context"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/vault/redact"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Update is one piece of progress of an agent call (op.AgentUpdate): Kind
// an E2A delta kind, Delta a string for text, an object otherwise.
type Update = op.AgentUpdate

// WithUpdates asks the agent call made with the returned context to pass
// its updates to fn while it runs (op.WithAgentUpdates).
func WithUpdates(ctx context.Context, fn func(Update)) context.Context {
	return op.WithAgentUpdates(ctx, fn)
}

// Continuation names a remote task that waits for its caller.
type Continuation = op.AgentContinuation

// WithContinuation makes the call made with the returned context send its
// input as the next message of the remote task c (op.WithAgentContinuation).
func WithContinuation(ctx context.Context, c Continuation) context.Context {
	return op.WithAgentContinuation(ctx, c)
}

// Bounds of one call's updates: past them the rest are dropped, and one
// custom {"type":"truncated"} update says so.
const (
	MaxUpdates     = 1000
	MaxUpdateBytes = 1 << 20
)

// updateLimit is MaxUpdates, lowered by tests of the bound.
var updateLimit = MaxUpdates

// updater hands one call's updates to its listener, scrubbed and bounded.
type updater struct {
	fn        func(Update)
	scrub     *redact.Redactor
	n, bytes  int
	truncated bool
	state     a2a.TaskState // the last state reported
	said      string        // the last status message reported (its id, or its text)
}

func newUpdater(ctx context.Context, scrub *redact.Redactor) *updater {
	fn := op.AgentUpdatesFrom(ctx)
	if fn == nil {
		return nil
	}
	return &updater{fn: fn, scrub: scrub}
}

// emit passes one update on; a nil updater listens to nothing.
func (u *updater) emit(kind string, delta any) {
	if u == nil || u.truncated {
		return
	}
	var size int
	switch d := delta.(type) {
	case string:
		delta = u.scrub.ScrubText(d)
		size = len(d)
	default:
		// Scrubbed as outputs are: decoded, so a secret spelled with JSON
		// escapes is found too.
		b, err := json.Marshal(d)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal(u.scrub.ScrubJSON(b), &v) != nil {
			return
		}
		delta, size = v, len(b)
	}
	if u.n >= updateLimit || u.bytes+size > MaxUpdateBytes {
		u.truncated = true
		u.fn(Update{Kind: e2a.DeltaCustom, Delta: map[string]any{"type": "truncated",
			"reason": "the agent sent more updates than one call passes on (1000 updates, 1 MiB); its result is not cut"}})
		return
	}
	u.n++
	u.bytes += size
	u.fn(Update{Kind: kind, Delta: delta})
}

// status reports a remote task's state when it changed.
func (u *updater) status(t *a2a.Task, s a2a.TaskStatus) {
	if u == nil {
		return
	}
	if s.State != u.state {
		u.state = s.State
		u.emit(e2a.DeltaCustom, map[string]any{"type": "status", "state": string(s.State), "remoteTaskId": string(t.ID)})
	}
	if s.Message != nil && !settled(s.State) {
		// A settled task's message is its answer or its question, which the
		// call's result carries. A task read again while it works shows the
		// same message again: it is said once.
		said := s.Message.ID
		if said == "" {
			said = taskStatusMessage(&a2a.Task{Status: s})
		}
		if said == u.said {
			return
		}
		u.said = said
		for _, p := range s.Message.Parts {
			if txt := p.Text(); txt != "" {
				u.emit(e2a.DeltaText, txt)
			}
		}
	}
}

// artifact reports an artifact update: its text parts as text, the others
// as custom {"type":"artifact", ...}.
func (u *updater) artifact(e *a2a.TaskArtifactUpdateEvent) {
	if u == nil || e.Artifact == nil {
		return
	}
	for _, p := range e.Artifact.Parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			u.emit(e2a.DeltaText, string(c))
		case a2a.Data:
			u.emit(e2a.DeltaCustom, map[string]any{"type": "artifact", "artifactId": string(e.Artifact.ID),
				"name": e.Artifact.Name, "data": c.Value})
		case a2a.URL:
			u.emit(e2a.DeltaCustom, map[string]any{"type": "artifact", "artifactId": string(e.Artifact.ID),
				"name": e.Artifact.Name, "file": map[string]any{"url": string(c), "media_type": p.MediaType, "filename": p.Filename}})
		}
	}
}
