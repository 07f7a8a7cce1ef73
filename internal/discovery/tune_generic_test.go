package discovery_test

import (
	"fmt"
	"os"
	"sort"
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

// bothSets scores o on each training set there is and says so in a line.
func bothSets(t *testing.T, es []discovery.Entry, sets map[string][]discovery.Labeled, o discovery.Options) string {
	line := ""
	for _, s := range []string{"train", "para"} {
		qs, ok := sets[s]
		if !ok {
			continue
		}
		r5, mrr, _, r10 := trainScore(t, es, qs, o)
		line += " " + s + " r5 " + ftoa3(r5) + " mrr " + ftoa3(mrr) + " r10 " + ftoa3(r10)
	}
	return line
}

func TestTuneGeneric(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	run := func(name string, o discovery.Options) { t.Logf("%-30s%s", name, bothSets(t, es, sets, o)) }
	base := discovery.DefaultOptions()
	run("defaults", base)
	for _, w := range []float64{0.25, 0.5, 0.75, 1} {
		o := base
		o.ValueWeight = w
		run("value "+ftoa(w), o)
	}
	for _, w := range []float64{0.25, 0.5, 1} {
		o := base
		o.CompoundWeight = w
		run("compound "+ftoa(w), o)
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
	run := func(name string, o discovery.Options) { t.Logf("%-44s%s", name, bothSets(t, es, sets, o)) }
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

// TestTuneWeightsBoth grid-searches field weights and k1 on both training
// sets (objective: mean recall@5, then mean MRR) around the defaults.
func TestTuneWeightsBoth(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	type result struct {
		name   string
		r, m   float64
		tr, pr float64
	}
	var results []result
	for _, name := range grid("name", []float64{2, 3, 4}) {
		for _, summary := range grid("summary", []float64{1, 2, 3}) {
			for _, desc := range grid("desc", []float64{0.5, 1, 1.5, 2}) {
				for _, params := range grid("params", []float64{0.25, 0.5, 1}) {
					for _, tags := range grid("tags", []float64{1, 1.5, 2}) {
						for _, k1 := range grid("k1", []float64{0.9, 1.2, 1.6}) {
							o := discovery.DefaultOptions()
							o.K1 = k1
							o.Weights = discovery.Weights{Name: name, Summary: summary, Description: desc, Parameters: params, Tags: tags, Path: 1}
							var r, m, tr, pr float64
							for _, s := range []string{"train", "para"} {
								r5, mrr, _, _ := trainScore(t, es, sets[s], o)
								r += r5 / 2
								m += mrr / 2
								if s == "train" {
									tr = r5
								} else {
									pr = r5
								}
							}
							results = append(results, result{fmt.Sprintf("name %g summary %g desc %g params %g tags %g k1 %g", name, summary, desc, params, tags, k1), r, m, tr, pr})
						}
					}
				}
			}
		}
	}
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].r != results[j].r {
			return results[i].r > results[j].r
		}
		return results[i].m > results[j].m
	})
	for _, r := range results[:20] {
		t.Logf("obj %.4f/%.4f train %.3f para %.3f  %s", r.r, r.m, r.tr, r.pr, r.name)
	}
}

// grid returns the values of one grid dimension: def, or those of the
// environment variable TUNE_<NAME> (comma-separated) to search elsewhere.
func grid(name string, def []float64) []float64 {
	v := os.Getenv("TUNE_" + strings.ToUpper(name))
	if v == "" {
		return def
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			panic(fmt.Sprintf("TUNE_%s: %v", strings.ToUpper(name), err))
		}
		out = append(out, x)
	}
	return out
}
