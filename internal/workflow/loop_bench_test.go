package workflow_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
)

// BenchmarkLoopOverhead is the engine's cost per Loop iteration (a trivial
// MergeData body) at 50 and 1000 items; per-iteration time must not grow with the
// number of items.
func BenchmarkLoopOverhead(b *testing.B) {
	for _, n := range []int{50, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { loopOverhead(b, n) })
	}
}

func loopOverhead(b *testing.B, n int) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	doc := []byte(`{"type":"operationUpdate","operationId":"each","operation":{"Loop":{"inputPath":"/input/ids","operations":["get"],"outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"get","operation":{"MergeData":{"sources":["/workflow/item","/workflow/index"],"strategy":"concat","outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"b","operationOrder":["each"]}`)
	ids := make([]any, n)
	for i := range ids {
		ids[i] = float64(i)
	}
	in := map[string]any{"ids": ids}
	h := newHarnessAt(b, srv, nil, slog.LevelError)
	for b.Loop() {
		res, report := h.runner.Execute(context.Background(), doc, account(), optionsIn(in))
		if report != nil || res.Status != engine.StatusSuccess {
			b.Fatal(fmt.Sprint(report, res))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/iteration")
}
