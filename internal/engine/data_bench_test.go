package engine_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
)

// BenchmarkDataWorkflow5 runs the 5-operation data workflow of `sluice bench
// serve` (filter, sort, select, aggregate, concat over 20 items) on the engine
// alone, without the server around it: the data budget's cost shows here
// undiluted.
func BenchmarkDataWorkflow5(b *testing.B) {
	env := op.NewEnvironment(&op.Deps{Limits: op.DefaultLimits()}, op.Builtins()...)
	plan := compile(b, env,
		def("active", "FilterData", `{"inputPath":"/input/items","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active"}`),
		def("ranked", "TransformData", `{"inputPath":"/workflow/active","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/ranked"}`),
		def("top", "TransformData", `{"inputPath":"/workflow/ranked","transform":"select","config":{"fields":["name","points"]},"outputPath":"/workflow/top"}`),
		def("totals", "TransformData", `{"inputPath":"/input/items","transform":"aggregate","config":{"operations":[{"op":"sum","field":"points","as":"points"},{"op":"count","as":"n"}],"groupBy":"status"},"outputPath":"/workflow/totals"}`),
		def("report", "MergeData", `{"sources":["/workflow/top","/workflow/totals"],"strategy":"concat","outputPath":"/workflow/report"}`),
		begin("", "active", "ranked", "top", "totals", "report"))
	items := make([]any, 20)
	for i := range items {
		status := "active"
		if i%3 == 0 {
			status = "idle"
		}
		items[i] = map[string]any{"name": fmt.Sprintf("u%d", i), "status": status, "points": float64((7 + i*13) % 500)}
	}
	input := map[string]any{"items": items}
	e := engine.New(engine.Options{})
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if r := e.Run(ctx, plan, engine.RunOptions{Input: input}); r.Status != engine.StatusSuccess {
			b.Fatal(r.Status, errorsText(r))
		}
	}
	// CPU time of the process (GC included) per run: on a machine shared with
	// other work, wall time per run mostly measures the wait for a core.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system time the process used so far, in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
