package execution

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

// The engine's result is encoded to the very bytes json.Marshal gives it,
// HTML characters, line separators and all, without json.Marshal's second
// pass over them.
func TestEncodeResultAsMarshal(t *testing.T) {
	res := &engine.Result{ExecutionID: "exec-1", Status: engine.StatusSuccess, DurationMs: 3,
		Results:   map[string]any{"b": []any{map[string]any{"x": "<a href='&'>\u2028\u2029</a>", "n": 1.5e300}}, "a": nil, "c": "\x01\"\\"},
		Errors:    []fault.Object{{Type: "ExecutionError", Message: "a <b> & c"}},
		StartedAt: time.Date(2026, 11, 29, 4, 0, 0, 123, time.FixedZone("x", 3600))}
	want, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeResult(res)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("encodeResult:\n%s\njson.Marshal:\n%s", got, want)
	}
	other := map[string]any{"k": "<>"}
	if got, _ := encodeResult(other); string(got) != `{"k":"\u003c\u003e"}` {
		t.Fatalf("another result: %s", got)
	}
	allocs := testing.AllocsPerRun(200, func() { _, _ = encodeResult(res) })
	viaMarshal := testing.AllocsPerRun(200, func() { _, _ = json.Marshal(res) })
	t.Logf("allocations per encode: %.0f (json.Marshal: %.0f)", allocs, viaMarshal)
}

func BenchmarkEncodeResult(b *testing.B) {
	items := make([]any, 20)
	for i := range items {
		items[i] = map[string]any{"name": "user", "status": "active", "points": float64(i * 13)}
	}
	res := &engine.Result{ExecutionID: "exec-1", Status: engine.StatusSuccess,
		Results: map[string]any{"active": items, "ranked": items, "top": items, "totals": items[:2], "report": items}}
	b.Run("encodeResult", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = encodeResult(res)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(res)
		}
	})
}
