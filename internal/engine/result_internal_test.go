package engine

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// marshalByReflection is how MarshalJSON wrote a Result before it wrote the
// results tree itself: the reference its bytes must match.
func marshalByReflection(r *Result) ([]byte, error) {
	w := resultJSON{ExecutionID: r.ExecutionID, Status: r.Status, Results: r.Results, Errors: r.Errors,
		DurationMs: r.DurationMs, Waiting: r.Waiting}
	if w.Results == nil {
		w.Results = map[string]any{}
	}
	if w.Errors == nil {
		w.Errors = []fault.Object{}
	}
	if !r.StartedAt.IsZero() {
		t := r.StartedAt.UTC()
		w.StartedAt = &t
	}
	if !r.CompletedAt.IsZero() {
		t := r.CompletedAt.UTC()
		w.CompletedAt = &t
	}
	return json.Marshal(w)
}

func TestResultMarshalAsReflection(t *testing.T) {
	at := time.Date(2026, 11, 29, 5, 0, 0, 1234, time.FixedZone("cet", 3600))
	for _, r := range []*Result{
		{},
		{ExecutionID: "exec-<1>", Status: StatusSuccess, Results: map[string]any{}, Errors: []fault.Object{}},
		{ExecutionID: "exec-1", Status: StatusPartial, DurationMs: 42, StartedAt: at, CompletedAt: at.Add(time.Second),
			Results: map[string]any{"b": []any{map[string]any{"x": "\u2028&", "n": 1e21}}, "a": nil, "c": int64(3)},
			Errors:  []fault.Object{{Type: "ExecutionError", Message: "a <b>", OperationID: "b", Details: map[string]any{"k": 1}}}},
		{ExecutionID: "exec-2", Status: StatusWaiting, Waiting: &Waiting{OperationID: "ask", Reason: "input", Request: map[string]any{"q": "?"}}},
	} {
		want, werr := marshalByReflection(r)
		got, gerr := r.MarshalJSON()
		if werr != nil || gerr != nil || !bytes.Equal(got, want) {
			t.Fatalf("MarshalJSON:\n%s (%v)\nby reflection:\n%s (%v)", got, gerr, want, werr)
		}
	}
}

// A 5-operation data workflow's result over 20 items (data5 of bench http).
func BenchmarkResultMarshal(b *testing.B) {
	items := make([]any, 20)
	for i := range items {
		items[i] = map[string]any{"name": "user", "status": "active", "points": float64(i * 13)}
	}
	r := &Result{ExecutionID: "exec-1", Status: StatusSuccess, StartedAt: time.Now(), CompletedAt: time.Now(),
		Results: map[string]any{"active": items, "ranked": items, "top": items, "totals": items[:2], "report": items}}
	for _, c := range []struct {
		name string
		f    func(*Result) ([]byte, error)
	}{{"MarshalJSON", (*Result).MarshalJSON}, {"reflection", marshalByReflection}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.f(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
