package discovery

import (
	"slices"
	"testing"
)

func TestQueryStopWordsAndNumbers(t *testing.T) {
	ix := New()
	q := ix.parse("Hey, can you please help me find ticket 4521 -please")
	if !slices.Equal(q.Terms, []string{"find", "ticket"}) {
		t.Fatalf("terms %q", q.Terms)
	}
	// An exclusion means what it says, stop word or not.
	if !slices.Equal(q.Exclude, []string{"pleas"}) {
		t.Fatalf("exclude %q", q.Exclude)
	}
	// The raw words keep stop words, for expansions.
	if !slices.Contains(q.words, "can") || !slices.Contains(q.words, "please") {
		t.Fatalf("words %q", q.words)
	}
	// Without the options, the same words stay.
	o := DefaultOptions()
	o.QueryStopWords, o.KeepNumbers = nil, true
	ix2, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if q := ix2.parse("please help me find ticket 4521"); !slices.Equal(q.Terms, []string{"pleas", "help", "find", "ticket", "4521"}) {
		t.Fatalf("terms %q", q.Terms)
	}
	// A word that merely contains digits (2fa, v2) is a word.
	if q := ix.parse("reset 2fa on v2 for 30"); !slices.Equal(q.Terms, []string{"reset", "2fa", "v2"}) {
		t.Fatalf("terms %q", q.Terms)
	}
}

func TestAppendTokensStop(t *testing.T) {
	got := appendTokensStop(nil, "Please getUserById, NEED it", stemPorter2, map[string]bool{"please": true, "need": true})
	if !slices.Equal(got, []string{"get", "user", "id"}) {
		t.Fatalf("%q", got)
	}
}

func TestExpand(t *testing.T) {
	ix := New()
	weights := map[string]float64{}
	for _, ts := range ix.expand(ix.parse("what invites did Carla send")) {
		weights[ts.term] = ts.weight
	}
	want := map[string]float64{
		"invit": 1, "carla": 1, "send": 1, // the query's own words
		"add":  0.5,             // synonym group invite/add, both ways
		"list": 0.5, "get": 0.5, // "what" is a question: read verbs
	}
	for term, w := range want {
		if weights[term] != w {
			t.Errorf("%s: weight %v, want %v (all: %v)", term, weights[term], w, weights)
		}
	}
	if len(weights) != len(want) {
		t.Errorf("expanded to %v", weights)
	}
	// A query word is never also added at a lower weight.
	for _, ts := range ix.expand(ix.parse("list what invites")) {
		if ts.term == "list" && ts.weight != 1 {
			t.Fatalf("list at %v", ts.weight)
		}
	}
	// Both ways: add finds invite.
	found := false
	for _, ts := range ix.expand(ix.parse("add Carla")) {
		found = found || ts.term == "invit" && ts.weight == 0.5
	}
	if !found {
		t.Fatal("add does not expand to invite")
	}
}

func TestPhraseBonus(t *testing.T) {
	ps := phrasePairs{{a: "creat", b: "channel", bonus: 2}, {a: "channel", b: "member", bonus: 1}}
	for _, tc := range []struct {
		name []string
		want float64
	}{
		{[]string{"creat", "channel"}, 2},
		{[]string{"channel", "creat"}, 2}, // either order
		{[]string{"creat", "privat", "channel"}, 0},
		{[]string{"list", "channel", "member"}, 1},
		{[]string{"creat", "channel", "member"}, 3},
		{[]string{"creat", "channel", "creat", "channel"}, 2}, // a pair counts once
		{nil, 0},
	} {
		if got := ps.bonus(tc.name); got != tc.want {
			t.Errorf("bonus(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	// In a search, the name that holds the phrase wins a tie on the words.
	ix := New()
	if err := ix.Upsert(
		Entry{Kind: KindOperation, ID: "a.createBigChannel", Name: "createBigChannel", Summary: "Log of a channel"},
		Entry{Kind: KindOperation, ID: "b.bigCreateChannel", Name: "bigCreateChannel", Summary: "Log of a channel"},
	); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.PhraseWeight = 0
	flat, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := flat.Upsert(ix.Entries(nil)...); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("create a channel", nil, 2); hits[0].Entry.ID != "b.bigCreateChannel" {
		t.Fatalf("with phrases: %+v", hits)
	}
	if hits := flat.Search("create a channel", nil, 2); hits[0].Entry.ID != "a.createBigChannel" {
		t.Fatalf("without phrases, the tie goes by id: %+v", hits)
	}
}
