package discovery_test

import (
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// learntIndex is an index of es ranking with o that learnt usage before
// its entries came, so no entry is written twice (a rewritten entry's old
// version counts in df until compaction, which would make the figures
// depend on the order of the writes).
func learntIndex(t *testing.T, es []discovery.Entry, o discovery.Options, usage map[discovery.Key]discovery.Usage) *discovery.Index {
	t.Helper()
	ix, err := discovery.NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	for k, u := range usage {
		ix.SetUsage(k, u)
	}
	if err := ix.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	return ix
}

// crossValidateUsage scores learning from use on the training queries
// only: five folds, each learnt from the other four and scored on its own
// queries, never seen by the index (recall@5, MRR, recall@10). sparse
// turns it around: each fold is learnt alone and the other four are
// scored, as in a catalog that use has taught little yet.
func crossValidateUsage(t *testing.T, es []discovery.Entry, all []discovery.Labeled, o discovery.Options, learn, sparse bool) (r5, mrr, r10 float64) {
	const folds = 5
	var n float64
	analyzer := learntIndex(t, es, o, nil)
	for fold := range folds {
		var teach, test []discovery.Labeled
		for i, q := range all {
			if (i%folds == fold) != sparse {
				test = append(test, q)
			} else {
				teach = append(teach, q)
			}
		}
		var usage map[discovery.Key]discovery.Usage
		if learn {
			var err error
			if usage, err = discovery.LabeledUsage(analyzer, teach); err != nil {
				t.Fatal(err)
			}
		}
		ix := learntIndex(t, es, o, usage)
		for _, k := range []int{5, 10} {
			rep, err := discovery.Evaluate(ix, test, k)
			if err != nil {
				t.Fatal(err)
			}
			f := rep.Figures[0]
			if k == 5 {
				r5 += f.RecallAtK * float64(len(test))
				mrr += f.MRR * float64(len(test))
			} else {
				r10 += f.RecallAtK * float64(len(test))
			}
		}
		n += float64(len(test))
	}
	return r5 / n, mrr / n, r10 / n
}

// TestTuneUsage chooses the usage field's weight and b by five-fold cross
// validation over both training sets (313 queries): the held-out and fresh
// sets take no part.
func TestTuneUsage(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	all := append(append([]discovery.Labeled{}, sets["train"]...), sets["para"]...)
	base := discovery.DefaultOptions()
	for _, sparse := range []bool{false, true} {
		r5, mrr, r10 := crossValidateUsage(t, es, all, base, false, sparse)
		t.Logf("sparse %-5v no learning          r5 %.3f mrr %.3f r10 %.3f", sparse, r5, mrr, r10)
	}
	for _, w := range []float64{0.25, 0.5, 0.75, 1, 1.5, 2} {
		for _, b := range []float64{0, 0.5, 0.75, 1} {
			o := base
			o.Weights.Usage = w
			fb := *base.FieldB
			fb.Usage = b
			o.FieldB = &fb
			line := ""
			for _, sparse := range []bool{false, true} {
				r5, mrr, r10 := crossValidateUsage(t, es, all, o, true, sparse)
				line += fmt.Sprintf("   sparse %-5v r5 %.3f mrr %.3f r10 %.3f", sparse, r5, mrr, r10)
			}
			t.Logf("usage %.2f b %.2f%s", w, b, line)
		}
	}
}
