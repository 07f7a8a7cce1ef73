package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// The configuration's ceiling of store.max_execution_bytes is the store's.
func TestConfiguredCeilingIsTheStores(t *testing.T) {
	if config.MaxStoredExecutionBytes != store.MaxExecutionBytes {
		t.Fatalf("config allows %d, the store %d", config.MaxStoredExecutionBytes, store.MaxExecutionBytes)
	}
	for limit, want := range map[int]int{0: store.MaxExecutionBytes, -1: store.MaxExecutionBytes, 4096: 4096,
		store.MaxExecutionBytes + 1: store.MaxExecutionBytes} {
		if got := store.ExecutionLimit(limit); got != want {
			t.Errorf("ExecutionLimit(%d) = %d, want %d", limit, got, want)
		}
	}
}

// countingCheckpoints counts the checkpoints that reach the store.
type countingCheckpoints struct{ saved int }

func (c *countingCheckpoints) SaveCheckpoint(context.Context, string, json.RawMessage) error {
	c.saved++
	return nil
}

func (c *countingCheckpoints) LoadCheckpoint(context.Context, string) (json.RawMessage, error) {
	return nil, fault.New(fault.NotFound, "none")
}

// A checkpoint over MaxBytes never reaches the store: it is a TooLarge
// DataError naming the limit and the size, which the engine takes as
// permanent.
func TestCheckpointerRefusesOverTheLimit(t *testing.T) {
	st := &countingCheckpoints{}
	c := store.Checkpointer{Store: st, MaxBytes: 1024}
	cp := &engine.Checkpoint{ExecutionID: "ex-1", Results: map[string]any{"big": strings.Repeat("x", 2048)}}
	err := c.Save(context.Background(), cp)
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.TooLarge || fe.SpecType() != fault.DataError ||
		!strings.Contains(fe.Message, "over the stored limit of 1024 bytes") || fe.Details["limitBytes"] != 1024 {
		t.Fatalf("save over the limit: %#v", err)
	}
	if st.saved != 0 {
		t.Fatalf("the store was asked %d times", st.saved)
	}
	cp.Results = nil
	if err := c.Save(context.Background(), cp); err != nil || st.saved != 1 {
		t.Fatalf("a small checkpoint: %v, %d saves", err, st.saved)
	}
}
