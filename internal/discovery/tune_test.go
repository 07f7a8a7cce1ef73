package discovery_test

import (
	"flag"
	"sort"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

var tune = flag.Bool("tune", false, "grid-search ranking options on the training split of the shipped dataset and print the best")

// TestTune is how DefaultOptions were chosen: a grid over field weights,
// k1 and b, scored on the TRAINING split only (recall@5, then MRR). It runs
// only with -tune: go test -run TestTune -tune -v ./internal/discovery/
func TestTune(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, qs := loadDataset(t)
	train, err := discovery.FilterSplit(qs, discovery.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		o           discovery.Options
		recall, mrr float64
	}
	var results []result
	for _, name := range []float64{1, 2, 3, 4} {
		for _, summary := range []float64{1, 2, 3} {
			for _, desc := range []float64{0.5, 1, 1.5} {
				for _, params := range []float64{0, 0.25, 0.5, 1} {
					for _, tags := range []float64{0.5, 1, 1.5, 2} {
						for _, path := range []float64{0, 0.5, 1} {
							for _, kb := range [][2]float64{{1.2, 0.75}, {0.9, 0.5}, {1.6, 0.75}} {
								o := discovery.DefaultOptions()
								o.K1, o.B = kb[0], kb[1]
								o.Weights = discovery.Weights{Name: name, Summary: summary, Description: desc, Parameters: params, Tags: tags, Path: path}
								ix, err := discovery.NewIndex(o)
								if err != nil {
									t.Fatal(err)
								}
								if err := ix.Upsert(es...); err != nil {
									t.Fatal(err)
								}
								rep, err := discovery.Evaluate(ix, train, 5)
								if err != nil {
									t.Fatal(err)
								}
								f := rep.Figures[0]
								results = append(results, result{o, f.RecallAtK, f.MRR})
							}
						}
					}
				}
			}
		}
	}
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].recall != results[j].recall {
			return results[i].recall > results[j].recall
		}
		return results[i].mrr > results[j].mrr
	})
	for _, r := range results[:min(25, len(results))] {
		t.Logf("train recall@5 %.3f MRR %.3f k1=%g b=%g %+v", r.recall, r.mrr, r.o.K1, r.o.B, r.o.Weights)
	}
}

// TestTuneSynonyms scores each default synonym group alone and leaves each
// out, and sweeps the synonym weight, on the TRAINING split only.
func TestTuneSynonyms(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, qs := loadDataset(t)
	train, err := discovery.FilterSplit(qs, discovery.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	score := func(groups [][]string, w float64) (float64, float64) {
		o := discovery.DefaultOptions()
		o.Synonyms, o.SynonymWeight = groups, w
		ix, err := discovery.NewIndex(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Upsert(es...); err != nil {
			t.Fatal(err)
		}
		rep, err := discovery.Evaluate(ix, train, 5)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Figures[0].RecallAtK, rep.Figures[0].MRR
	}
	r, m := score(nil, 0)
	t.Logf("no synonyms: recall@5 %.3f MRR %.3f", r, m)
	for _, w := range []float64{0.25, 0.5, 0.75, 1} {
		r, m := score(discovery.DefaultSynonyms, w)
		t.Logf("all groups, weight %.2f: recall@5 %.3f MRR %.3f", w, r, m)
	}
	for i, g := range discovery.DefaultSynonyms {
		r1, m1 := score([][]string{g}, 0.5)
		rest := append(append([][]string{}, discovery.DefaultSynonyms[:i]...), discovery.DefaultSynonyms[i+1:]...)
		r2, m2 := score(rest, 0.5)
		t.Logf("%v alone: %.3f/%.3f; all but it: %.3f/%.3f", g, r1, m1, r2, m2)
	}
}
