package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
)

// noop is the cheapest possible operation: its cost is the engine's overhead.
type noop struct{}

func (noop) Run(context.Context, *op.RunContext) (any, error) { return true, nil }

// noopPlan is a workflow of n no-op steps, each writing its own outputPath.
func noopPlan(b *testing.B, n int) *engine.Plan {
	env := op.NewEnvironment(&op.Deps{}, op.Registration{
		Spec: op.Spec{Name: "Noop"},
		New:  func(json.RawMessage, *op.Deps) (op.Operation, error) { return noop{}, nil },
	})
	var lines, order []string
	for i := range n {
		id := fmt.Sprintf("op-%d", i)
		lines = append(lines, def(id, "Noop", fmt.Sprintf(`{"outputPath":"/workflow/v%d"}`, i)))
		order = append(order, id)
	}
	lines = append(lines, begin("", order...))
	return compile(b, env, lines...)
}

func benchmarkRun(b *testing.B, cps engine.Checkpointer) {
	const steps = 20
	plan := noopPlan(b, steps)
	e := engine.New(engine.Options{Checkpointer: cps})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r := e.Run(ctx, plan, engine.RunOptions{ExecutionID: "bench"})
		if r.Status != engine.StatusSuccess {
			b.Fatal(r.Status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/steps, "ns/step")
}

// BenchmarkRun20Noop is the engine's overhead per simple step.
func BenchmarkRun20Noop(b *testing.B) { benchmarkRun(b, nil) }

// BenchmarkRun20NoopCheckpointed adds a checkpoint (to JSON, in memory) after every step.
func BenchmarkRun20NoopCheckpointed(b *testing.B) { benchmarkRun(b, engine.NewMemoryCheckpointer()) }
