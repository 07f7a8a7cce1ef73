package discovery_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// trainScore indexes the shipped catalog with o and returns recall@5 and
// MRR on the TRAINING split only.
func trainScore(t *testing.T, es []discovery.Entry, train []discovery.Labeled, o discovery.Options) (r5, mrr, r3, r10 float64) {
	t.Helper()
	ix, err := discovery.NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{3, 5, 10} {
		rep, err := discovery.Evaluate(ix, train, k)
		if err != nil {
			t.Fatal(err)
		}
		f := rep.Figures[0]
		switch k {
		case 3:
			r3 = f.RecallAtK
		case 5:
			r5, mrr = f.RecallAtK, f.MRR
		case 10:
			r10 = f.RecallAtK
		}
	}
	return
}

func trainSplit(t *testing.T) ([]discovery.Entry, []discovery.Labeled) {
	es, qs := loadDataset(t)
	train, err := discovery.FilterSplit(qs, discovery.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	return es, train
}

// TestTuneIdeas scores variants of the ranking on the TRAINING split only.
func TestTuneIdeas(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, train := trainSplit(t)
	for _, v := range tuneVariants() {
		r5, mrr, r3, r10 := trainScore(t, es, train, v.o)
		t.Logf("%-40s recall@5 %.3f MRR %.3f recall@3 %.3f recall@10 %.3f", v.name, r5, mrr, r3, r10)
	}
}

type variant struct {
	name string
	o    discovery.Options
}

var candidateStops = []string{
	"please", "need", "needs", "want", "wants", "wanna", "help", "let", "lets", "like", "would",
	"could", "able", "possible", "someone", "somebody", "something", "thing", "things", "way",
	"currently", "actually", "really", "also", "kindly", "hey", "hi", "hello", "thanks", "thank",
	"ok", "okay", "sure", "quickly", "asap", "try", "trying", "us",
}

// Generic API vocabulary: CRUD verbs and common nouns of REST APIs.
var candidateGroups = [][]string{
	{"create", "add", "new", "make"},
	{"delete", "remove", "destroy", "erase", "discard"},
	{"list", "all", "enumerate", "browse"},
	{"get", "fetch", "retrieve", "show", "view", "details"},
	{"update", "change", "modify", "edit", "set"},
	{"search", "find", "look", "query", "lookup"},
	{"user", "account", "member", "person", "people"},
	{"cancel", "void", "revoke", "abort"},
	{"approve", "accept", "confirm"},
	{"reject", "decline", "deny"},
	{"start", "begin", "launch"},
	{"stop", "end", "halt"},
	{"customer", "client", "buyer"},
	{"company", "organization", "business", "org"},
	{"employee", "staff", "worker", "colleague", "personnel"},
	{"price", "cost", "fee", "pricing"},
	{"file", "document", "doc"},
	{"image", "picture", "photo"},
	{"schedule", "book", "reserve"},
	{"upload", "attach"},
	{"download", "export"},
	{"restore", "recover", "undelete"},
	{"phone", "mobile", "device"},
	{"team", "group"},
	{"error", "failure", "problem"},
	{"notify", "alert", "remind"},
	{"report", "summary", "statistics", "stats", "metrics"},
	{"copy", "duplicate", "clone"},
	{"merge", "combine"},
	{"comment", "reply", "respond"},
	{"login", "signin", "authenticate"},
	{"logout", "signout"},
	{"password", "credentials", "passcode"},
	{"purchase", "buy", "order"},
	{"location", "place", "address"},
	{"count", "number", "total"},
	{"directions", "route", "navigate"},
	{"refund", "reimburse"},
	{"link", "connect", "associate"},
	{"invite", "add"},
	{"assign", "allocate"},
	{"pay", "payment"},
}

func tuneVariants() []variant {
	base := discovery.DefaultOptions()
	var out []variant
	out = append(out, variant{"defaults", base})
	p2 := base
	p2.Stemmer = "porter2"
	out = append(out, variant{"porter2", p2})
	qs := base
	qs.QueryStopWords = candidateStops
	out = append(out, variant{"query stop words", qs})
	for _, w := range []float64{0.1, 0.2, 0.3, 0.5} {
		o := base
		o.ExpansionWeight = w
		o.Expansions = map[string][]string{}
		for _, q := range []string{"what", "which", "who", "whose", "where", "when", "how", "show"} {
			o.Expansions[q] = []string{"list", "get"}
		}
		out = append(out, variant{"questions -> list get w=" + ftoa(w), o})
	}
	for _, w := range []float64{0.25, 0.5, 1, 2} {
		o := base
		o.PhraseWeight = w
		out = append(out, variant{"phrase w=" + ftoa(w), o})
	}
	kn := base
	kn.KeepNumbers = true
	out = append(out, variant{"keep numbers", kn})
	for _, bn := range []float64{0, 0.3, 0.5, 0.75, 1} {
		for _, bd := range []float64{0.3, 0.5, 0.75, 1} {
			o := base
			o.FieldB = &discovery.Weights{Name: bn, Summary: 0.75, Description: bd, Parameters: 0.75, Tags: 0.75, Path: 0.75}
			out = append(out, variant{"b name=" + ftoa(bn) + " desc=" + ftoa(bd), o})
		}
	}
	for _, bs := range []float64{0, 0.3, 0.5, 1} {
		o := base
		o.FieldB = &discovery.Weights{Name: 0.75, Summary: bs, Description: 0.75, Parameters: 0.75, Tags: 0.75, Path: 0.75}
		out = append(out, variant{"b summary=" + ftoa(bs), o})
		o.FieldB = &discovery.Weights{Name: 0.75, Summary: 0.75, Description: 0.75, Parameters: bs, Tags: bs, Path: bs}
		out = append(out, variant{"b params/tags/path=" + ftoa(bs), o})
	}
	all := base
	all.Synonyms = append(append([][]string{}, base.Synonyms...), candidateGroups...)
	out = append(out, variant{"all candidate groups", all})
	for _, g := range candidateGroups {
		o := base
		o.Synonyms = append(append([][]string{}, base.Synonyms...), g)
		out = append(out, variant{"+ " + strings.Join(g, "/"), o})
	}
	return out
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestTuneForward adds the ideas one at a time to the current best and
// keeps each that raises train recall@5, or MRR without lowering recall@5.
func TestTuneForward(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, train := trainSplit(t)
	cur := discovery.DefaultOptions()
	cur.Stemmer = "porter2"
	cur.QueryStopWords = candidateStops
	cr, cm, _, _ := trainScore(t, es, train, cur)
	t.Logf("start: %.3f / %.3f", cr, cm)
	try := func(name string, o discovery.Options) {
		r, m, r3, r10 := trainScore(t, es, train, o)
		kept := r > cr || r == cr && m > cm
		t.Logf("%-45s %.3f / %.3f (r3 %.3f r10 %.3f) kept=%v", name, r, m, r3, r10, kept)
		if kept {
			cur, cr, cm = o, r, m
		}
	}
	o := cur
	o.FieldB = &discovery.Weights{Name: 0.75, Summary: 0.75, Description: 0.5, Parameters: 0.75, Tags: 0.75, Path: 0.75}
	try("description b 0.5", o)
	for _, w := range []float64{0.5, 1} {
		o = cur
		o.PhraseWeight = w
		try("phrase "+ftoa(w), o)
	}
	for _, w := range []float64{0.2, 0.5} {
		o = cur
		o.ExpansionWeight = w
		o.Expansions = map[string][]string{}
		for _, q := range []string{"what", "which", "who", "whose", "where", "when", "how", "show"} {
			o.Expansions[q] = []string{"list", "get"}
		}
		try("questions "+ftoa(w), o)
	}
	for _, g := range candidateGroups {
		o = cur
		o.Synonyms = append(append([][]string{}, cur.Synonyms...), g)
		try("+ "+strings.Join(g, "/"), o)
	}
	for _, w := range []float64{0.3, 0.4, 0.6} {
		o = cur
		o.SynonymWeight = w
		try("synonym weight "+ftoa(w), o)
	}
	t.Logf("final: %.3f / %.3f %+v", cr, cm, cur)
}

// TestTuneAblation takes each new piece out of DefaultOptions in turn
// (TRAINING split only).
func TestTuneAblation(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, train := trainSplit(t)
	def := discovery.DefaultOptions()
	old := def
	old.Stemmer, old.FieldB, old.QueryStopWords, old.Expansions, old.PhraseWeight, old.KeepNumbers = "porter", nil, nil, nil, 0, true
	old.Synonyms = def.Synonyms[:6]
	cases := []variant{{"defaults", def}, {"previous defaults", old}}
	o := def
	o.Stemmer = "porter"
	cases = append(cases, variant{"- porter2 (porter)", o})
	o = def
	o.FieldB = nil
	cases = append(cases, variant{"- b per field", o})
	o = def
	o.QueryStopWords = nil
	cases = append(cases, variant{"- query stop words", o})
	o = def
	o.KeepNumbers = true
	cases = append(cases, variant{"- numbers dropped", o})
	o = def
	o.Expansions = nil
	cases = append(cases, variant{"- question expansion", o})
	o = def
	o.PhraseWeight = 0
	cases = append(cases, variant{"- phrases", o})
	o = def
	o.Synonyms = def.Synonyms[:6]
	cases = append(cases, variant{"- invite/add", o})
	for _, v := range cases {
		r5, mrr, r3, r10 := trainScore(t, es, train, v.o)
		t.Logf("%-25s recall@5 %.3f MRR %.3f recall@3 %.3f recall@10 %.3f", v.name, r5, mrr, r3, r10)
	}
}
