package discovery_test

import (
	"os"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// Two indexes of the same entries rank every query alike, scores included,
// although Go's maps iterate in a new order each time: the word vector
// expansion scans the index's terms in map order and must break ties
// itself.
func TestRankingDeterministic(t *testing.T) {
	es, qs := loadDataset(t)
	if f, err := os.Open(paraphraseQueries); err == nil {
		more, err := discovery.ReadLabeled(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, more...)
	}
	var ixs [2]*discovery.Index
	for i := range ixs {
		ixs[i] = discovery.New()
		if err := ixs[i].Upsert(es...); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range qs {
		a, b := ixs[0].Search(q.Query, nil, 10), ixs[1].Search(q.Query, nil, 10)
		if len(a) != len(b) {
			t.Fatalf("%q: %d and %d hits", q.Query, len(a), len(b))
		}
		for i := range a {
			if a[i].Entry.ID != b[i].Entry.ID || a[i].Score != b[i].Score {
				t.Fatalf("%q: hit %d is %s %v and %s %v", q.Query, i, a[i].Entry.ID, a[i].Score, b[i].Entry.ID, b[i].Score)
			}
		}
	}
}
