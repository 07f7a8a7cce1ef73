package discovery_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// paraphraseQueries is a second training set, written from the OpenAPI
// documents alone in other words than theirs (split train).
const paraphraseQueries = "../../testdata/discovery/queries-paraphrase.jsonl"

// trainSets returns the training split of the shipped queries and, when
// present, the paraphrased training set.
func trainSets(t *testing.T) (es []discovery.Entry, sets map[string][]discovery.Labeled) {
	es, train := trainSplit(t)
	sets = map[string][]discovery.Labeled{"train": train}
	if f, err := os.Open(paraphraseQueries); err == nil {
		defer f.Close()
		qs, err := discovery.ReadLabeled(f)
		if err != nil {
			t.Fatal(err)
		}
		sets["para"] = qs
	}
	return es, sets
}

func TestTuneGeneric(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	run := func(name string, o discovery.Options) {
		line := ""
		for _, s := range []string{"train", "para"} {
			qs, ok := sets[s]
			if !ok {
				continue
			}
			r5, mrr, _, r10 := trainScore(t, es, qs, o)
			line += " " + s + " r5 " + ftoa3(r5) + " mrr " + ftoa3(mrr) + " r10 " + ftoa3(r10)
		}
		t.Logf("%-30s%s", name, line)
	}
	base := discovery.DefaultOptions()
	run("defaults", base)
	for _, w := range []float64{0.25, 0.5, 0.75, 1} {
		o := base
		o.ValueWeight = w
		run("value "+ftoa(w), o)
	}
	for _, wn := range []bool{false, true} {
		for _, w := range []float64{0.1, 0.2, 0.3, 0.5, 0.75, 1} {
			o := base
			o.SourceWeight = w
			name := "source " + ftoa(w)
			if wn {
				o.WordNet.Weight, o.WordNet.Senses = 0.25, 0
				name += " + wordnet"
			}
			run(name, o)
		}
	}
}

func ftoa3(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// TestTuneMisses prints the training queries DefaultOptions miss at 5.
func TestTuneMisses(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	ix, err := discovery.NewIndex(discovery.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"train", "para"} {
		rep, err := discovery.Evaluate(ix, sets[s], 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Recall < 1 {
				t.Logf("[%s] %q want %v (rank %d) top %v", s, r.Query, r.Relevant, r.FirstRank, r.Top)
			}
		}
	}
}

// TestTuneGroupsBoth adds each candidate synonym group to the base and
// scores both training sets (objective: mean recall@5, then mean MRR).
func TestTuneGroupsBoth(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	base := discovery.DefaultOptions()
	base.SourceWeight = 0.75
	base.WordNet.Weight, base.WordNet.Senses = 0.25, 0
	score := func(o discovery.Options) (r, m float64, line string) {
		for _, s := range []string{"train", "para"} {
			r5, mrr, _, _ := trainScore(t, es, sets[s], o)
			r += r5 / 2
			m += mrr / 2
			line += " " + s + " " + ftoa3(r5) + "/" + ftoa3(mrr)
		}
		return
	}
	br, bm, line := score(base)
	t.Logf("%-50s obj %.4f/%.4f%s", "base", br, bm, line)
	for _, g := range candidateGroups {
		o := base
		o.Synonyms = append(append([][]string{}, base.Synonyms...), g)
		r, m, line := score(o)
		mark := ""
		if r > br || r == br && m > bm {
			mark = " +"
		}
		t.Logf("%-50s obj %.4f/%.4f%s%s", strings.Join(g, "/"), r, m, line, mark)
	}
}

// TestTuneWordNetPara scores the WordNet expansion on both training sets:
// the shipped training split and the paraphrased set.
func TestTuneWordNetPara(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	run := func(name string, o discovery.Options) {
		line := ""
		for _, s := range []string{"train", "para"} {
			r5, mrr, _, r10 := trainScore(t, es, sets[s], o)
			line += " " + s + " r5 " + ftoa3(r5) + " mrr " + ftoa3(mrr) + " r10 " + ftoa3(r10)
		}
		t.Logf("%-44s%s", name, line)
	}
	run("off", discovery.DefaultOptions())
	for _, w := range []float64{0.25, 0.5, 0.75} {
		for _, df := range []float64{0, 0.01, 0.03} {
			for _, senses := range []int{1, 2, 0} {
				for _, hyper := range []bool{false, true} {
					o := discovery.DefaultOptions()
					o.WordNet.Weight, o.WordNet.MaxDF, o.WordNet.Senses, o.WordNet.Hypernyms = w, df, senses, hyper
					run("w "+ftoa(w)+" df "+ftoa(df)+" senses "+itoa(senses)+" hyper "+map[bool]string{true: "y", false: "n"}[hyper], o)
				}
			}
		}
	}
}
