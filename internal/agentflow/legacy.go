package agentflow

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
)

// Before runs moved to the run service, a run kept its own checkpoint: the
// steps completed, in run order, and their outputs. A run in flight when the
// server was upgraded still has one; it is read here as the engine's
// checkpoint of the same progress, so the run goes on after its last
// completed step and no agent is called again for a recorded step.

// legacyProgress is that checkpoint.
type legacyProgress struct {
	Completed []string                   `json:"completed"`
	Outputs   map[string]json.RawMessage `json:"outputs"`
}

// isLegacy tells the old format from the engine's, whose JSON always has
// "version".
func isLegacy(raw []byte) bool {
	var probe struct {
		Version   *int            `json:"version"`
		Completed json.RawMessage `json:"completed"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.Version == nil && probe.Completed != nil
}

// ReadCheckpoint turns a checkpoint of the old format into the engine's.
func (p *program) ReadCheckpoint(e store.Execution, raw []byte) (*engine.Checkpoint, bool, error) {
	if !isLegacy(raw) {
		return nil, false, nil
	}
	var old legacyProgress
	if err := json.Unmarshal(raw, &old); err != nil {
		return nil, true, fault.New(fault.Internal, "the checkpoint of run %s is unreadable", e.ID).WithCause(err)
	}
	var input any = map[string]any{}
	if len(bytes.TrimSpace(e.Input)) > 0 {
		if err := json.Unmarshal(e.Input, &input); err != nil {
			return nil, true, fault.New(fault.Internal, "the input of run %s is unreadable", e.ID).WithCause(err)
		}
	}
	cp := &engine.Checkpoint{Version: engine.CheckpointVersion, ExecutionID: e.ID, PlanDigest: p.plan.Digest,
		Account: e.AccountID, SessionID: e.SessionID, Status: engine.StatusRunning, Input: input,
		Workflow: map[string]any{}, Results: map[string]any{}, Errors: []fault.Object{},
		BudgetMs: e.BudgetMs, StartedAt: e.CreatedAt}
	if e.StartedAt != nil {
		cp.StartedAt = *e.StartedAt
	}
	for i, id := range p.plan.Order {
		out, done := old.Outputs[id]
		if !done {
			break // the steps after the first one not done are not done either
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			return nil, true, fault.New(fault.Internal, "the output of step %q of run %s is unreadable", id, e.ID).WithCause(err)
		}
		cp.Workflow[id], cp.Results[id] = v, v
		cp.Finished = append(cp.Finished, positionOf(i))
		cp.Succeeded++
	}
	return cp, true, nil
}

// Drain empties the queue topic the old format's steps went on: their runs
// are the run service's now (recovered at its start), so an old item has
// nothing left to do. It returns how many it dropped.
func Drain(ctx context.Context, q queue.Queue, owner string) (int, error) {
	n := 0
	for {
		items, err := q.Lease(ctx, LegacyTopic, owner, 100, time.Minute)
		if err != nil || len(items) == 0 {
			return n, err
		}
		for _, it := range items {
			if err := q.Ack(ctx, it); err != nil {
				return n, err
			}
			n++
		}
	}
}
