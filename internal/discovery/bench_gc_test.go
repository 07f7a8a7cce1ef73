package discovery_test

import (
	"runtime"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// BenchmarkGCWithStaticData: one forced garbage collection (runtime.GC,
// which waits for the mark phase to end) with the WordNet thesaurus and the
// word vectors loaded and in use, as in a server, and the live heap they
// leave (heap-MB, after a collection). Issue 27: the mark phase of every
// cycle walks this data.
func BenchmarkGCWithStaticData(b *testing.B) {
	o := discovery.DefaultOptions()
	o.WordNet.Weight = 0.5
	ix, err := discovery.NewIndex(o)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for b.Loop() {
		runtime.GC()
	}
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB") // after the loop: it resets the metrics
	runtime.KeepAlive(ix)
}
