package discovery_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// TestTuneWordNet scores the WordNet expansion on the TRAINING split only:
// off, the settings chosen before measuring, then one setting changed at a
// time from them. go test -run TestTuneWordNet -v ./internal/discovery/ -args -tune
func TestTuneWordNet(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, train := trainSplit(t)
	base := discovery.DefaultOptions()
	base.WordNet.Weight = 0.5
	run := func(name string, change func(*discovery.WordNetOptions)) {
		o := base
		change(&o.WordNet)
		r5, mrr, r3, r10 := trainScore(t, es, train, o)
		t.Logf("%-32s recall@5 %.3f MRR %.3f recall@3 %.3f recall@10 %.3f", name, r5, mrr, r3, r10)
	}
	run("off", func(w *discovery.WordNetOptions) { w.Weight = 0 })
	run("a priori (weight 0.5)", func(w *discovery.WordNetOptions) {})
	for _, v := range []float64{0.25, 0.75, 1} {
		run("weight "+ftoa(v), func(w *discovery.WordNetOptions) { w.Weight = v })
	}
	for _, v := range []float64{0, 0.005, 0.02, 0.05} {
		run("max_df "+ftoa(v), func(w *discovery.WordNetOptions) { w.MaxDF = v })
	}
	for _, v := range []int{1, 3, 0} {
		run("senses "+itoa(v), func(w *discovery.WordNetOptions) { w.Senses = v })
	}
	run("no derived", func(w *discovery.WordNetOptions) { w.Derived = false })
	run("no hypernyms", func(w *discovery.WordNetOptions) { w.Hypernyms = false })
	run("with hyponyms", func(w *discovery.WordNetOptions) { w.Hyponyms = true })
	for _, v := range []int{1, 2, 8} {
		run("max_terms "+itoa(v), func(w *discovery.WordNetOptions) { w.MaxTerms = v })
	}
}

// TestTuneWordNetAbsent is the second round: only words absent from the
// index expanded (max_df 0), crossed with senses, hypernyms and weight.
func TestTuneWordNetAbsent(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, train := trainSplit(t)
	for _, w := range []float64{0.25, 0.5} {
		for _, senses := range []int{1, 2} {
			for _, hyper := range []bool{false, true} {
				o := discovery.DefaultOptions()
				o.WordNet.Weight, o.WordNet.MaxDF, o.WordNet.Senses, o.WordNet.Hypernyms = w, 0, senses, hyper
				r5, mrr, r3, r10 := trainScore(t, es, train, o)
				t.Logf("weight %.2f senses %d hypernyms %-5v recall@5 %.3f MRR %.3f recall@3 %.3f recall@10 %.3f", w, senses, hyper, r5, mrr, r3, r10)
			}
		}
	}
}
