package discovery_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

var voidKey = discovery.Key{Kind: discovery.KindOperation, ID: "billing.voidInvoice"}

// A word no entry holds (nor any related word) finds the entry use taught it, and only while the
// index keeps that usage.
func TestUsageTeachesAWord(t *testing.T) {
	ix := newIndex(t, sample()...)
	if got := ids(ix.Search("quux", nil, 5)); slices.Contains(got, voidKey.ID) {
		t.Fatalf("before any usage, quux found %v", got)
	}
	ix.SetUsage(voidKey, discovery.Usage{"quux": 1})
	if got := ids(ix.Search("quux", nil, 1)); !slices.Equal(got, []string{voidKey.ID}) {
		t.Fatalf("after usage: %v", got)
	}
	if u := ix.UsageOf(voidKey); len(u) != 1 || u["quux"] != 1 {
		t.Fatalf("UsageOf: %v", u)
	}
	if keys := ix.UsageKeys(); !slices.Equal(keys, []discovery.Key{voidKey}) {
		t.Fatalf("UsageKeys: %v", keys)
	}
	// The entry's own text still finds it, and the learnt word does not
	// change what other queries find.
	if got := ids(ix.Search("customer record", nil, 1)); !slices.Equal(got, []string{"crm.getCustomer"}) {
		t.Fatalf("other query: %v", got)
	}
	ix.SetUsage(voidKey, nil)
	if got := ids(ix.Search("quux", nil, 5)); slices.Contains(got, voidKey.ID) {
		t.Fatalf("after forgetting, quux found %v", got)
	}
	if u := ix.UsageOf(voidKey); u != nil {
		t.Fatalf("UsageOf after forgetting: %v", u)
	}
	if keys := ix.UsageKeys(); len(keys) != 0 {
		t.Fatalf("UsageKeys after forgetting: %v", keys)
	}
}

// Usage belongs to the key: set before the entry exists, it applies when
// the entry comes, and it survives the entry being replaced by a new
// version, removed and added again.
func TestUsageFollowsTheKey(t *testing.T) {
	ix := discovery.New()
	ix.SetUsage(voidKey, discovery.Usage{"quux": 2})
	other := discovery.Key{Kind: discovery.KindAgent, ID: "a"}
	ix.SetUsage(other, discovery.Usage{"quux": 1})
	if keys := ix.UsageKeys(); !slices.Equal(keys, []discovery.Key{other, voidKey}) {
		t.Fatalf("keys of usage set before the entries, by kind: %v", keys)
	}
	ix.SetUsage(other, nil)
	if err := ix.Upsert(sample()...); err != nil {
		t.Fatal(err)
	}
	found := func(step string) {
		t.Helper()
		if got := ids(ix.Search("quux", nil, 1)); !slices.Equal(got, []string{voidKey.ID}) {
			t.Fatalf("%s: %v", step, got)
		}
	}
	found("added after usage")
	e, _ := ix.Get(voidKey)
	e.Summary = "Void (cancel) an invoice"
	if err := ix.Replace(discovery.KindOperation, "billing", []discovery.Entry{e}); err != nil {
		t.Fatal(err)
	}
	found("replaced")
	ix.Remove(voidKey)
	if got := ix.Search("quux", nil, 5); len(got) != 0 {
		t.Fatalf("removed entry found: %v", ids(got))
	}
	if err := ix.Upsert(e); err != nil {
		t.Fatal(err)
	}
	found("added again")
}

// The learnt words are one more field: learnt for an entry that also
// holds the word in its text, they add to its score, and a usage that
// changes replaces the old one rather than adding to it. (Indexes are
// built fresh for each score: a rewritten entry's old version counts in df
// until its segment is compacted, as after any write.)
func TestUsageReplacesAndAdds(t *testing.T) {
	score := func(u discovery.Usage) float64 {
		ix := discovery.New()
		ix.SetUsage(voidKey, u)
		if err := ix.Upsert(sample()...); err != nil {
			t.Fatal(err)
		}
		hits := ix.Search("void invoice", nil, 1)
		if len(hits) != 1 || hits[0].Entry.ID != voidKey.ID {
			t.Fatalf("usage %v: %v", u, ids(hits))
		}
		return hits[0].Score
	}
	none, void, other := score(nil), score(discovery.Usage{"void": 1}), score(discovery.Usage{"quux": 1})
	if !(void > none) {
		t.Fatalf("usage of a word the entry holds: score %v -> %v", none, void)
	}
	if other > none {
		t.Fatalf("usage of another word raised the score: %v -> %v", none, other)
	}
	ix := newIndex(t, sample()...)
	ix.SetUsage(voidKey, discovery.Usage{"void": 1})
	ix.SetUsage(voidKey, discovery.Usage{"quux": 1})
	if u := ix.UsageOf(voidKey); len(u) != 1 || u["quux"] != 1 {
		t.Fatalf("replaced usage: %v", u)
	}
	if got := ids(ix.Search("quux", nil, 1)); !slices.Equal(got, []string{voidKey.ID}) {
		t.Fatalf("new word: %v", got)
	}
}

// What cannot be a term is ignored, and an entry keeps its most used
// MaxUsageTerms words.
func TestUsageBounds(t *testing.T) {
	ix := newIndex(t, sample()...)
	u := discovery.Usage{"Annul": 3, "two words": 3, "": 1, "cancel": 0, "revoke": -2, strings.Repeat("a", 65): 1}
	for i := range discovery.MaxUsageTerms + 10 {
		u[fmt.Sprintf("word%03d", i)] = 1
	}
	u["annul"] = 5
	ix.SetUsage(voidKey, u)
	got := ix.UsageOf(voidKey)
	if len(got) != discovery.MaxUsageTerms {
		t.Fatalf("kept %d words, want %d", len(got), discovery.MaxUsageTerms)
	}
	if got["annul"] != 5 {
		t.Fatalf("the most used word went: %v", got)
	}
	for _, bad := range []string{"Annul", "two words", "", "cancel", "revoke", strings.Repeat("a", 65)} {
		if _, ok := got[bad]; ok {
			t.Fatalf("kept %q", bad)
		}
	}
	// The words kept are the most used, then the first by word.
	if _, ok := got["word000"]; !ok {
		t.Fatalf("ties not broken by word: %v", got)
	}
	if _, ok := got[fmt.Sprintf("word%03d", discovery.MaxUsageTerms+9)]; ok {
		t.Fatalf("kept the last word of a tie")
	}
	// Only ignorable words: nothing is kept.
	ix.SetUsage(voidKey, discovery.Usage{"Bad Word": 1})
	if got := ix.UsageOf(voidKey); got != nil {
		t.Fatalf("kept %v", got)
	}
}

// A query teaches its own words that the index or general English knows:
// not stop words, numbers, shorthands' letters, qualifiers, exclusions, the
// characters of an email address, nor a token.
func TestLearnableTerms(t *testing.T) {
	ix := newIndex(t, sample()...)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"please annul the invoice", []string{"annul", "invoic"}},
		{"void invoice 4521 for jane.doe@example.com", []string{"void", "invoic", "email", "address"}},
		{"kind:operation -customer annul", []string{"annul"}},
		{"cancel with ghp_Zx8Qw3Lk9Vb2Nm4Rt7Yp1Uo6 now", []string{"cancel"}},
		{"void invoice sk_live_Zx8Qw3Lk9Vb2Nm4Rt7Yp", []string{"void", "invoic"}},
		{"void invoice 9f86d081884c7d659a2feaa0c55ad015", []string{"void", "invoic"}},
		{"void invoice2026 v2", []string{"void"}}, // not words the index or English knows
		{"the of and", nil},
	} {
		got := ix.LearnableTerms(c.query)
		// Value type words are not learnt: they are the query's type words,
		// not its own words.
		want := slices.DeleteFunc(slices.Clone(c.want), func(w string) bool { return w == "email" || w == "address" })
		if !slices.Equal(got, want) {
			t.Errorf("LearnableTerms(%q) = %v, want %v", c.query, got, want)
		}
	}
	// Without the word vectors, only the index's own words are known.
	o := discovery.DefaultOptions()
	o.WordVectors.Weight = 0
	ix2, err := discovery.NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix2.Upsert(sample()...); err != nil {
		t.Fatal(err)
	}
	if got := ix2.LearnableTerms("please annul the invoice"); !slices.Equal(got, []string{"invoic"}) {
		t.Fatalf("without vectors: %v", got)
	}
}

// Setting usage keeps a hybrid index's embedding of the entry: the vector
// ranking still finds it.
func TestUsageKeepsEmbeddings(t *testing.T) {
	var n atomic.Int32
	srv := fakeServer(t, "sk-test-123", &n)
	emb := &discovery.OpenAIEmbedder{BaseURL: srv.URL + "/", Model: "fake-embed", APIKey: "sk-test-123"}
	h := lexicalHybrid(t, emb)
	ix := h.Index()
	calls := n.Load()
	ix.SetUsage(discovery.Key{Kind: discovery.KindOperation, ID: "fleet.listCars"}, discovery.Usage{"motor": 1})
	if n.Load() != calls {
		t.Fatalf("usage embedded the entry again")
	}
	got := ids(h.Search(context.Background(), "automobile", nil, 2))
	if !slices.Contains(got, "fleet.listCars") {
		t.Fatalf("the entry lost its vector: %v", got)
	}
	if got := ids(ix.Search("motor", nil, 1)); !slices.Equal(got, []string{"fleet.listCars"}) {
		t.Fatalf("usage: %v", got)
	}
}

// Usage set while writers replace the entry is never lost: each write
// publishes the usage of its time, under the writers' lock.
func TestUsageConcurrentWithWrites(t *testing.T) {
	ix := newIndex(t, sample()...)
	e, _ := ix.Get(voidKey)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 200 {
			if err := ix.Upsert(e); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 200 {
			ix.SetUsage(voidKey, discovery.Usage{"quux": 1 + i%3})
			ix.Search("quux invoice", nil, 3)
		}
	}()
	wg.Wait()
	if got := ids(ix.Search("quux", nil, 1)); !slices.Equal(got, []string{voidKey.ID}) {
		t.Fatalf("usage lost: %v", got)
	}
}

// Labeled queries teach each named entry their learnable words, counted
// once per query; an id the index lacks fails with its line.
func TestLabeledUsage(t *testing.T) {
	ix := newIndex(t, sample()...)
	u, err := discovery.LabeledUsage(ix, []discovery.Labeled{
		{Query: "annul the invoice", Relevant: []string{voidKey.ID}, Line: 1},
		{Query: "annul it please", Relevant: []string{voidKey.ID, "crm.getCustomer"}, Line: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := u[voidKey]; len(got) != 2 || got["annul"] != 2 || got["invoic"] != 1 {
		t.Fatalf("void: %v", got)
	}
	if got := u[discovery.Key{Kind: discovery.KindOperation, ID: "crm.getCustomer"}]; len(got) != 1 || got["annul"] != 1 {
		t.Fatalf("customer: %v", got)
	}
	_, err = discovery.LabeledUsage(ix, []discovery.Labeled{{Query: "x", Relevant: []string{"nope"}, Line: 7}})
	if err == nil || !strings.Contains(err.Error(), `line 7: relevant id "nope" is not in the index`) {
		t.Fatalf("unknown id: %v", err)
	}
}

// The usage field's length is measured against the entries that have one:
// the first entry use teaches, among many that nothing taught, is found by
// its learnt words ahead of an entry that holds one of them in its
// description. (Measured against every entry, its four words would count
// as two hundred times too many, and for nearly nothing.)
func TestFirstUsageCounts(t *testing.T) {
	es := sample()
	es = append(es, discovery.Entry{Kind: discovery.KindOperation, ID: "billing.listLate", Source: "billing", Name: "listLate",
		Summary: "List late invoices", Description: "Invoices past their due date, also called overdue."})
	for i := range 200 {
		es = append(es, discovery.Entry{Kind: discovery.KindTool, ID: fmt.Sprintf("filler%d", i), Name: fmt.Sprintf("filler%d", i), Summary: "Something else entirely"})
	}
	ix := newIndex(t, es...)
	ix.SetUsage(voidKey, discovery.Usage{"quux": 1, "overdu": 1, "invoic": 1, "void": 1})
	if got := ids(ix.Search("quux overdue", nil, 2)); len(got) != 2 || got[0] != voidKey.ID || got[1] != "billing.listLate" {
		t.Fatalf("the first learnt entry: %v", got)
	}
}
