package checkpoint

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

// TestEncodeAsMarshal: encode writes what json.Marshal does, key order
// aside: decoded, the two are equal, for a full checkpoint and for one with
// every tree absent; each key once; and a value json.Marshal refuses is
// refused.
func TestEncodeAsMarshal(t *testing.T) {
	at := time.Date(2026, 11, 29, 6, 0, 0, 1000, time.UTC)
	full := &engine.Checkpoint{Version: engine.CheckpointVersion, ExecutionID: "ex-1", PlanDigest: "sha256:x", Account: "alice",
		SessionID: "s1", Status: engine.StatusRunning,
		Workflow: map[string]any{"users": []any{map[string]any{"name": "<ann>", "n": 1.5, "ok": true, "none": nil}}, "e": map[string]any{}},
		Input:    map[string]any{"q": "a\u2028b"}, Results: map[string]any{"fetch": []any{"x", 2.0}, "n": json.Number("3")},
		Errors: []fault.Object{{Type: "DataError", Message: "m"}}, Finished: []string{"0", "1"},
		Outputs: map[string]any{"0/1": []any{1.0}}, State: map[string]json.RawMessage{"2": json.RawMessage(`{"a":1}`)},
		Overlays: map[string]map[string]any{"3/0": {"v": 1.0}}, Succeeded: 2, Failed: 1, TimedOut: true,
		ElapsedMs: 5, BudgetMs: 30000, StartedAt: at, SavedAt: at, Parked: &engine.Parked{Position: "4", Since: at, Until: at}}
	for name, cp := range map[string]*engine.Checkpoint{"full": full, "no trees": {Version: 1, ExecutionID: "ex-2", Outputs: map[string]any{}}} {
		got, err := encode(nil, cp)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(cp)
		if err != nil {
			t.Fatal(err)
		}
		var g, w map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v in %s", name, err, got)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d bytes against json.Marshal's %d: a key written twice or left out", name, len(got), len(want))
		}
	}
	if _, err := encode(nil, &engine.Checkpoint{ExecutionID: "x", Results: map[string]any{"nan": math.NaN()}}); err == nil {
		t.Error("a NaN was encoded")
	}
}

// BenchmarkEncode: a checkpoint holding 20,000 small objects twice (as the
// workflow tree and as a result), by encode and by json.Marshal, in one run.
func BenchmarkEncode(b *testing.B) {
	users := make([]any, 20_000)
	for i := range users {
		users[i] = map[string]any{"id": float64(i), "name": "user", "status": "active", "email": "user@example.com"}
	}
	cp := &engine.Checkpoint{Version: engine.CheckpointVersion, ExecutionID: "ex-1", Status: engine.StatusRunning,
		Workflow: map[string]any{"users": users}, Results: map[string]any{"fetch": users}, Finished: []string{"0"}}
	for name, enc := range map[string]func() ([]byte, error){
		"encode": func() ([]byte, error) { return encode(nil, cp) }, "json.Marshal": func() ([]byte, error) { return json.Marshal(cp) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
