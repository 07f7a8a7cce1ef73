package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
)

// talkOp reports n progress chunks ("0", "1", ...) and succeeds.
type talkOp struct{ n int }

func (o talkOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	for i := range o.n {
		rc.Progress("text", fmt.Sprint(i))
	}
	return nil, nil
}

func talkRegistration(n int) op.Registration {
	return op.Registration{Spec: op.Spec{Name: "Talk"}, New: func(json.RawMessage, *op.Deps) (op.Operation, error) { return talkOp{n: n}, nil }}
}

// A step's progress is an EventChunk each, in order, between its started
// and finished events, naming the step; past MaxChunkEvents a run's chunks
// are dropped after one that says so.
func TestProgressIsChunkEvents(t *testing.T) {
	for _, n := range []int{3, engine.MaxChunkEvents + 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := newFakes(t)
			plan := compile(t, f.envWith(talkRegistration(n)), def("t", "Talk", `{}`), begin("", "t"))
			rec := &recorder{}
			r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{OnEvent: rec.on})
			if r.Status != engine.StatusSuccess {
				t.Fatalf("status %s: %s", r.Status, errorsText(r))
			}
			var chunks []engine.Event
			var started, finished = -1, -1
			for i, ev := range rec.list() {
				switch ev.Kind {
				case engine.EventChunk:
					chunks = append(chunks, ev)
				case engine.EventStarted:
					started = i
				case engine.EventFinished:
					finished = i
				}
			}
			want := min(n, engine.MaxChunkEvents+1)
			if len(chunks) != want || finished-started != want+1 {
				t.Fatalf("%d chunks between started (%d) and finished (%d), want %d", len(chunks), started, finished, want)
			}
			for i, ev := range chunks[:min(n, engine.MaxChunkEvents)] {
				if ev.DeltaKind != "text" || ev.Delta != fmt.Sprint(i) || ev.OperationID != "t" {
					t.Fatalf("chunk %d: %+v", i, ev)
				}
			}
			if n > engine.MaxChunkEvents {
				last := chunks[len(chunks)-1]
				if m, ok := last.Delta.(map[string]any); !ok || last.DeltaKind != "custom" || m["type"] != "truncated" {
					t.Fatalf("the last chunk %+v does not say the rest were dropped", last)
				}
			}
		})
	}
}
