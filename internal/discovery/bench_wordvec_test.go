package discovery_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/discovery/wordvec"
)

// BenchmarkSearchWordVectors compares, in one run, searches with the word
// vector expansion on (the default) and off: over the shipped catalog
// (its queries), the 10,000 synthetic entries of BenchmarkSearch10k (no
// filter), and 10,000 entries written in a wide vocabulary (the
// worst case: every word of the index has a vector, so the scan for the
// words closest to a query word the index lacks visits them all). On the
// wide index, "cold" queries each hold a word the index lacks that no
// query before it held for a while (4,000 of them in turn, more than a
// snapshot's cache keeps), so every search scans; "warm" cycles through 64
// queries, as agents repeating their words do.
func BenchmarkSearchWordVectors(b *testing.B) {
	off := discovery.DefaultOptions()
	off.WordVectors.Weight = 0
	es, qs := loadDataset(b)
	queries := make([]string, len(qs))
	for i, q := range qs {
		queries[i] = q.Query
	}
	wide, cold := wideVocabulary(b, 10000, 4000)
	for _, c := range []struct {
		name    string
		entries []discovery.Entry
		queries []string
	}{{"dataset", es, queries}, {"synthetic10k", synthetic(10000), benchQueries}, {"wide10k-cold", wide, cold}, {"wide10k-warm", wide, cold[:64]}} {
		for _, o := range []struct {
			name string
			o    discovery.Options
		}{{"on", discovery.DefaultOptions()}, {"off", off}} {
			b.Run(c.name+"/"+o.name, func(b *testing.B) {
				ix, err := discovery.NewIndex(o.o)
				if err != nil {
					b.Fatal(err)
				}
				if err := ix.Upsert(c.entries...); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					ix.Search(c.queries[i%len(c.queries)], nil, 5)
				}
			})
		}
	}
}

// BenchmarkSearchAfterWrite: one upsert, then one search with a word the
// index lacks, over the wide 10,000 entries. The first such search of a
// snapshot lists the index's terms that have vectors; compare with
// BenchmarkUpsertOne10k and the cold search above for its share.
func BenchmarkSearchAfterWrite(b *testing.B) {
	es, qs := wideVocabulary(b, 10000, 64)
	ix := discovery.New()
	if err := ix.Upsert(es...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		upsertChanged(b, ix, es[i%len(es)])
		ix.Search(qs[i%len(qs)], nil, 5)
	}
}

// wideVocabulary returns n synthetic entries whose words are drawn (Zipf)
// from the even-numbered words of the vector table, and nq queries of
// three words: two drawn likewise and one the index lacks (odd-numbered),
// a different one in each query.
func wideVocabulary(b *testing.B, n, nq int) ([]discovery.Entry, []string) {
	tab, err := wordvec.Default()
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.05, 8, uint64(tab.Len()/2-1))
	word := func() string { return tab.Word(int32(2 * z.Uint64())) }
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ")
	}
	es := make([]discovery.Entry, n)
	for i := range es {
		src := fmt.Sprintf("api%03d", i/40)
		es[i] = discovery.Entry{
			Kind: discovery.KindOperation, ID: fmt.Sprintf("%s.op%d", src, i), Source: src,
			Name: word() + " " + word(), Summary: words(6), Description: words(30),
			Parameters: []discovery.Param{{Name: "id", Description: words(5)}},
		}
	}
	qs := make([]string, nq)
	for i := range qs {
		qs[i] = word() + " " + tab.Word(int32(2*i+1)) + " " + word()
	}
	return es, qs
}
