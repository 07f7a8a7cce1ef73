package discovery_test

import (
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// BenchmarkSetUsage10k: one piece of feedback as the index sees it, the
// usage of one entry replaced in an index of 10,000 (the entry's doc is
// rewritten with the new words, like an upsert).
func BenchmarkSetUsage10k(b *testing.B) {
	es := synthetic(10000)
	ix := newIndex(b, es...)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e := es[i%len(es)]
		ix.SetUsage(e.Key(), discovery.Usage{"nudge": 1 + i%3, "overdue": 1, fmt.Sprintf("w%d", i%50): 1})
	}
}

// BenchmarkSearch10kLearnt compares, in one run, searches over 10,000
// synthetic entries without usage and with every entry holding 8 learnt
// words of the vocabulary (the filter of BenchmarkSearch10k).
func BenchmarkSearch10kLearnt(b *testing.B) {
	for _, learnt := range []bool{false, true} {
		b.Run(fmt.Sprintf("learnt=%v", learnt), func(b *testing.B) {
			es := synthetic(10000)
			ix := discovery.New()
			if learnt {
				for i, e := range es {
					u := discovery.Usage{}
					for j := range 8 {
						u[vocabulary[(i*7+j*13)%len(vocabulary)]] = 1 + j%3
					}
					ix.SetUsage(e.Key(), u)
				}
			}
			if err := ix.Upsert(es...); err != nil {
				b.Fatal(err)
			}
			benchSearchFiltered(b, ix)
		})
	}
}
