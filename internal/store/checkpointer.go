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
}

var _ engine.Checkpointer = Checkpointer{}

// Save serialises cp (the engine reuses its values afterwards) and stores it.
func (c Checkpointer) Save(ctx context.Context, cp *engine.Checkpoint) error {
	data, err := json.Marshal(cp)
	if err != nil {
		return fault.New(fault.Internal, "checkpoint of execution %q is not serialisable", cp.ExecutionID).WithCause(err)
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
