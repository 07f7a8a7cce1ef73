package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

// limitedCheckpointer refuses checkpoints over max bytes as a store does
// (TooLarge) and counts every save it is asked for.
type limitedCheckpointer struct {
	*engine.MemoryCheckpointer
	max int

	mu       sync.Mutex
	attempts int
	refused  int
}

func (c *limitedCheckpointer) Save(ctx context.Context, cp *engine.Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.attempts++
	over := len(b) > c.max
	if over {
		c.refused++
	}
	c.mu.Unlock()
	if over {
		return fault.Typed(fault.TooLarge, fault.DataError, "the state of execution %s is %d bytes, over the stored limit of %d bytes", cp.ExecutionID, len(b), c.max)
	}
	return c.MemoryCheckpointer.Save(ctx, cp)
}

// A checkpoint over the stored limit fails the execution at once: the steps
// after it never run, it is not saved again after every step, the results
// are dropped and the last checkpoint is saved without its data.
func TestCheckpointOverTheLimitFailsAtOnce(t *testing.T) {
	big := `"` + strings.Repeat("x", 4096) + `"`
	for _, c := range []struct {
		name  string
		lines []string
	}{
		{"a middle step", []string{
			def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
			def("big", "Const", `{"value":`+big+`,"outputPath":"/workflow/big"}`),
			def("after", "Const", `{"value":2,"outputPath":"/workflow/after"}`),
			begin("", "a", "big", "after"),
		}},
		{"the last step, under onError continue", []string{
			def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
			def("big", "Const", `{"value":`+big+`,"outputPath":"/workflow/big"}`),
			begin("continue", "a", "big"),
		}},
		{"inside a concurrent loop", []string{
			def("items", "Const", `{"value":[1,2,3,4,5,6,7,8],"outputPath":"/workflow/items"}`),
			def("loop", "Each", `{"inputPath":"/workflow/items","operations":["big","after"],"concurrency":2,"outputPath":"/workflow/out"}`),
			def("big", "Const", `{"value":`+big+`,"outputPath":"/workflow/big"}`),
			def("after", "Const", `{"value":2,"outputPath":"/workflow/after"}`),
			begin("", "items", "loop"),
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			cps := &limitedCheckpointer{MemoryCheckpointer: engine.NewMemoryCheckpointer(), max: 2048}
			r := newEngine(engine.Options{Checkpointer: cps}).Run(context.Background(), compile(t, f.env(), c.lines...),
				engine.RunOptions{ExecutionID: "run-1"})
			if r.Status != engine.StatusFailed {
				t.Fatalf("status %s (%s), want failed", r.Status, errorsText(r))
			}
			var over *fault.Object
			for i, e := range r.Errors {
				if e.Type == fault.DataError && strings.Contains(e.Message, "over the stored limit of 2048 bytes") {
					over = &r.Errors[i]
				}
			}
			if over == nil || len(r.Errors) != 1 {
				t.Fatalf("errors %s, want one DataError naming the limit", errorsText(r))
			}
			if len(r.Results) != 0 {
				t.Errorf("results kept: %v", r.Results)
			}
			if n := f.count("after"); n != 0 {
				t.Errorf("a step after the failed save ran %d times", n)
			}
			// The one refused save, and the slim final one; none after every
			// later step.
			if cps.refused != 1 {
				t.Errorf("%d saves refused, want 1 (of %d attempts)", cps.refused, cps.attempts)
			}
			final, err := cps.Load(context.Background(), "run-1")
			if err != nil || final.Status != engine.StatusFailed || len(final.Results) != 0 || len(final.Workflow) != 0 || len(final.Errors) != 1 {
				t.Fatalf("final checkpoint %+v, %v", final, err)
			}
		})
	}
}

// Another save error is transient: the execution goes on.
func TestCheckpointSaveFailureIsTransient(t *testing.T) {
	f := newFakes(t)
	r := newEngine(engine.Options{Checkpointer: failingCheckpointer{}}).Run(context.Background(), compile(t, f.env(),
		def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
		def("b", "Const", `{"value":2,"outputPath":"/workflow/b"}`),
		begin("", "a", "b")), engine.RunOptions{ExecutionID: "run-1"})
	if r.Status != engine.StatusSuccess || r.Results["b"] != float64(2) {
		t.Fatalf("status %s results %v (%s)", r.Status, r.Results, errorsText(r))
	}
}

type failingCheckpointer struct{}

func (failingCheckpointer) Save(context.Context, *engine.Checkpoint) error {
	return fault.New(fault.Unavailable, "the store is away").Retry(0)
}

func (failingCheckpointer) Load(context.Context, string) (*engine.Checkpoint, error) {
	return nil, fault.New(fault.NotFound, "none")
}
