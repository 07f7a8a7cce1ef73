// Package checkpoint keeps the engine's checkpoints in the store. It sits
// outside internal/store so that the store holds rows and knows nothing of
// the engine (internal/layering checks that).
package checkpoint

import (
	"context"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Stored adapts store.Checkpoints to engine.Checkpointer: the engine's
// checkpoints are kept as their JSON, one (the latest) per execution.
type Stored struct {
	Store store.Checkpoints
	// MaxBytes is the stored limit of a checkpoint (store.ExecutionLimit: 0
	// or more than store.MaxExecutionBytes is the ceiling). A checkpoint over
	// it is refused with store.OverStoredLimit before the store is asked.
	MaxBytes int
}

var _ engine.Checkpointer = Stored{}

// Save serialises cp (the engine reuses its values afterwards) and stores it;
// one over the stored limit is a TooLarge error, which the engine takes as
// permanent (engine.Checkpointer).
func (c Stored) Save(ctx context.Context, cp *engine.Checkpoint) error {
	data, err := encode(nil, cp)
	if err != nil {
		return fault.New(fault.Internal, "checkpoint of execution %q is not serialisable", cp.ExecutionID).WithCause(err)
	}
	if limit := store.ExecutionLimit(c.MaxBytes); len(data) > limit {
		return store.OverStoredLimit("state", cp.ExecutionID, len(data), limit)
	}
	start := telemetry.WriteStart()
	err = c.Store.SaveCheckpoint(ctx, cp.ExecutionID, data)
	telemetry.SlowWrite(ctx, "checkpoint.save", start, len(data))
	return err
}

// Load returns the latest checkpoint; NotFound when there is none.
func (c Stored) Load(ctx context.Context, executionID string) (*engine.Checkpoint, error) {
	data, err := c.Store.LoadCheckpoint(ctx, executionID)
	if err != nil {
		return nil, err
	}
	cp, err := decode(data)
	if err != nil {
		return nil, fault.New(fault.Internal, "checkpoint of execution %q is unreadable", executionID).WithCause(err)
	}
	return cp, nil
}
