package checkpoint_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/checkpoint"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

var ctx = context.Background()

// On every backend a checkpoint comes back as the engine saved it, copied at
// Save, and a missing one (or one of a missing execution) is NotFound.
func TestStoredOnBackends(t *testing.T) {
	for name, s := range storetest.Backends(t, nil) {
		t.Run(name, func(t *testing.T) {
			if _, err := s.CreateAccount(ctx, store.Account{ID: "alice", Name: "Alice"}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.CreateExecution(ctx, store.Execution{ID: "ex-1", AccountID: "alice", Digest: "sha256:doc-ex-1",
				Document: []byte(`{"beginExecution":{}}`), Status: store.StatusQueued, BudgetMs: 30000}); err != nil {
				t.Fatal(err)
			}
			var cpr engine.Checkpointer = checkpoint.Stored{Store: s}
			_, err := cpr.Load(ctx, "ex-1")
			wantKind(t, err, fault.NotFound, "no checkpoint")
			cp := &engine.Checkpoint{Version: engine.CheckpointVersion, ExecutionID: "ex-1", Account: "alice", Status: engine.StatusRunning,
				Workflow: map[string]any{"users": []any{"a", "b"}}, Results: map[string]any{"op1": 2.0}, Finished: []string{"0"},
				BudgetMs: 30000, ElapsedMs: 12, StartedAt: time.Date(2026, 11, 23, 1, 2, 3, 4000, time.UTC)}
			if err := cpr.Save(ctx, cp); err != nil {
				t.Fatal(err)
			}
			cp.Finished = append(cp.Finished, "1") // the engine reuses its values: Save must have copied
			back, err := cpr.Load(ctx, "ex-1")
			if err != nil {
				t.Fatal(err)
			}
			if back.ExecutionID != "ex-1" || len(back.Finished) != 1 || back.Results["op1"] != 2.0 ||
				fmt.Sprint(back.Workflow["users"]) != "[a b]" || !back.StartedAt.Equal(cp.StartedAt) || back.Status != engine.StatusRunning {
				t.Fatalf("loaded %+v", back)
			}
			wantKind(t, cpr.Save(ctx, &engine.Checkpoint{ExecutionID: "ex-none"}), fault.NotFound, "checkpoint of a missing execution")
		})
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
func TestStoredRefusesOverTheLimit(t *testing.T) {
	st := &countingCheckpoints{}
	c := checkpoint.Stored{Store: st, MaxBytes: 1024}
	cp := &engine.Checkpoint{ExecutionID: "ex-1", Results: map[string]any{"big": strings.Repeat("x", 2048)}}
	err := c.Save(ctx, cp)
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.TooLarge || fe.SpecType() != fault.DataError ||
		!strings.Contains(fe.Message, "over the stored limit of 1024 bytes") || fe.Details["limitBytes"] != 1024 {
		t.Fatalf("save over the limit: %#v", err)
	}
	if st.saved != 0 {
		t.Fatalf("the store was asked %d times", st.saved)
	}
	cp.Results = nil
	if err := c.Save(ctx, cp); err != nil || st.saved != 1 {
		t.Fatalf("a small checkpoint: %v, %d saves", err, st.saved)
	}
}

// wantKind fails t unless err is a *fault.Error of kind.
func wantKind(t *testing.T, err error, kind fault.Kind, what string) {
	t.Helper()
	if _, ok := fault.As(err); !ok || fault.KindOf(err) != kind {
		t.Fatalf("%s: %v, want a %v fault", what, err, kind)
	}
}
