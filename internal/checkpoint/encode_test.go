package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
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

// A result that is a workflow value (the same list or map in memory) is
// stored once, as a reference, and read back into results, shared with the
// workflow tree; the checkpoint read back is the one json.Marshal would
// have stored. A reference to a value the tree does not hold, or beside a
// stored value of the same result, is an error; a checkpoint json.Marshal
// wrote (no references) still reads.
func TestResultsThatAreWorkflowValuesStoredOnce(t *testing.T) {
	users := []any{map[string]any{"name": "ann"}, map[string]any{"name": "bob"}}
	active := map[string]any{"ann": true}
	cp := &engine.Checkpoint{Version: engine.CheckpointVersion, ExecutionID: "ex-1", Status: engine.StatusRunning,
		Workflow:  map[string]any{"users": users, "active": active, "n": 2.0},
		Results:   map[string]any{"fetch": users, "pick": active, "count": 2.0, "copy": []any{map[string]any{"name": "ann"}}, "first": users[:1]},
		Finished:  []string{"0"},
		DataBytes: engine.PresizeAbove, // sized first, as a large one
	}
	got, err := encode(nil, cp)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Results    map[string]json.RawMessage `json:"results"`
		ResultRefs map[string]string          `json:"resultRefs"`
	}
	if err := json.Unmarshal(got, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.ResultRefs) != 2 || raw.ResultRefs["fetch"] != "users" || raw.ResultRefs["pick"] != "active" {
		t.Errorf("references %v, want fetch → users and pick → active", raw.ResultRefs)
	}
	if len(raw.Results) != 3 || raw.Results["fetch"] != nil {
		t.Errorf("stored results %v: want count, copy and first (equal values, or a shorter list, are not the same value)", raw.Results)
	}
	back, err := decode(got)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%p", back.Results["fetch"]) != fmt.Sprintf("%p", back.Workflow["users"]) {
		t.Error("the result read back is not the workflow's value")
	}
	want, _ := json.Marshal(cp)
	again, _ := json.Marshal(back)
	var w, g any
	_ = json.Unmarshal(want, &w)
	_ = json.Unmarshal(again, &g)
	if !reflect.DeepEqual(w, g) {
		t.Errorf("read back\n%s\nwant\n%s", again, want)
	}
	// The engine's raw reader (agentflow's) finds the same results.
	rawResults, err := engine.CheckpointResults(got)
	if err != nil || len(rawResults) != 5 || string(rawResults["fetch"]) != `[{"name":"ann"},{"name":"bob"}]` {
		t.Errorf("engine.CheckpointResults: %v, %v", rawResults, err)
	}
	if old, err := decode(want); err != nil || len(old.Results) != 5 {
		t.Errorf("json.Marshal's checkpoint read back with %d results, %v", len(old.Results), err)
	}
	for _, bad := range []string{
		`{"version":1,"executionId":"x","workflow":{},"results":{},"resultRefs":{"fetch":"users"}}`,
		`{"version":1,"executionId":"x","workflow":{"users":[1]},"results":{"fetch":[1]},"resultRefs":{"fetch":"users"}}`,
	} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("%s was read", bad)
		}
		if _, err := engine.CheckpointResults([]byte(bad)); err == nil && strings.Contains(bad, `"workflow":{}`) {
			t.Errorf("engine.CheckpointResults read %s", bad)
		}
	}
}
