package execution

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
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

// A stored execution reads back with its results as the execute response
// had them, byte for byte (a number beyond 2^53 included, which a decode
// into float64 would change), and View.JSON is json.Marshal's encoding of
// the view, in one buffer.
func TestViewPassesResultsThrough(t *testing.T) {
	started := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	res := &engine.Result{ExecutionID: "exec-1", Status: engine.StatusSuccess, DurationMs: 7,
		Results: map[string]any{"big": int64(9007199254740993), "html": "<b>&</b>", "list": []any{1.5, nil, true}},
		Errors:  []fault.Object{{Type: "ExecutionError", Message: "x"}}, StartedAt: started}
	stored, err := encodeResult(res)
	if err != nil {
		t.Fatal(err)
	}
	finished := started.Add(time.Second)
	for _, e := range []store.Execution{
		{ID: "exec-1", Status: store.StatusSuccess, ClientID: "c-1", Result: stored, CreatedAt: started, StartedAt: &started, FinishedAt: &finished},
		{ID: "exec-2", Status: store.StatusRunning, CreatedAt: started},
		{ID: "exec-3", Status: store.StatusWaiting, Result: json.RawMessage(`{"results":null,"waiting":{"operationId":"ask"}}`), CreatedAt: started},
	} {
		v := viewOf(e)
		pieces, err := v.JSON()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := pieces.MarshalJSON()
		var written bytes.Buffer
		if _, err := pieces.WriteTo(&written); err != nil || !bytes.Equal(written.Bytes(), got) {
			t.Errorf("%s: WriteTo wrote %s, MarshalJSON %s", e.ID, written.Bytes(), got)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: View.JSON\n%s\njson.Marshal\n%s", e.ID, got, want)
		}
		var back struct {
			Results json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		wantResults := `{}`
		if e.ID == "exec-1" {
			wantResults = `{"big":9007199254740993,"html":"\u003cb\u003e\u0026\u003c/b\u003e","list":[1.5,null,true]}`
		}
		if string(back.Results) != wantResults {
			t.Errorf("%s: results %s, want %s", e.ID, back.Results, wantResults)
		}
	}
}
