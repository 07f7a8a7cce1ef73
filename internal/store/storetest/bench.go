package storetest

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// SetClients makes b.RunParallel run about n goroutines (at least one a
// processor).
func SetClients(b *testing.B, n int) { b.SetParallelism(max(1, n/runtime.GOMAXPROCS(0))) }

// RunClients runs fn from about n goroutines and reports the rate as unit.
func RunClients(b *testing.B, n int, unit string, fn func() error) {
	SetClients(b, n)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fn(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), unit)
}

var benchSeq atomic.Int64

// BenchExecution is a new execution of account "bench" in status, with a
// one-step data workflow and a client id: the record a benchmark writes.
func BenchExecution(status store.Status) store.Execution {
	id := fmt.Sprintf("ex-%d", benchSeq.Add(1))
	return store.Execution{ID: id, AccountID: "bench", ClientID: "c-" + id, Digest: "sha256:0123456789abcdef",
		Document: benchDoc, Input: []byte(`{"items":[{"a":1},{"a":2}]}`), Status: status, BudgetMs: 30000}
}

var benchDoc = []byte(`{"operationUpdate":{"operationId":"f","operation":{"FilterData":{"inputPath":"/input/items","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/out"}}}}` +
	"\n" + `{"beginExecution":{"operationOrder":["f"]}}`)
