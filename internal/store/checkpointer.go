package store

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

// Checkpointer adapts Checkpoints to engine.Checkpointer: the engine's
// checkpoints are kept as their JSON, one (the latest) per execution.
type Checkpointer struct {
	Store Checkpoints
	// MaxBytes is the stored limit of a checkpoint (ExecutionLimit: 0 or
	// more than MaxExecutionBytes is the ceiling). A checkpoint over it is
	// refused with OverStoredLimit before the store is asked.
	MaxBytes int
}

var _ engine.Checkpointer = Checkpointer{}

// Save serialises cp (the engine reuses its values afterwards) and stores it;
// one over the stored limit is a TooLarge error, which the engine takes as
// permanent (engine.Checkpointer).
func (c Checkpointer) Save(ctx context.Context, cp *engine.Checkpoint) error {
	data, err := json.Marshal(cp)
	if err != nil {
		return fault.New(fault.Internal, "checkpoint of execution %q is not serialisable", cp.ExecutionID).WithCause(err)
	}
	if limit := ExecutionLimit(c.MaxBytes); len(data) > limit {
		return OverStoredLimit("state", cp.ExecutionID, len(data), limit)
	}
	return c.Store.SaveCheckpoint(ctx, cp.ExecutionID, data)
}

// Load returns the latest checkpoint; NotFound when there is none.
func (c Checkpointer) Load(ctx context.Context, executionID string) (*engine.Checkpoint, error) {
	data, err := c.Store.LoadCheckpoint(ctx, executionID)
	if err != nil {
		return nil, err
	}
	var cp engine.Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fault.New(fault.Internal, "checkpoint of execution %q is unreadable", executionID).WithCause(err)
	}
	return &cp, nil
}
