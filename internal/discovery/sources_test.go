package discovery

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// sourceDocs returns the live aggregate docs of ix's source index by source.
func sourceDocs(ix *Index) map[string]*doc {
	out := map[string]*doc{}
	src := ix.cur.Load().sources
	if src == nil {
		return out
	}
	for _, d := range src.sortedDocs() {
		out[d.e.Source] = d
	}
	return out
}

func sourceIndex(t *testing.T, es ...Entry) *Index {
	t.Helper()
	ix := New()
	if ix.opts.SourceWeight == 0 {
		t.Fatal("source context is off by default")
	}
	if err := ix.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	return ix
}

// An operation whose own text matches a query as well as another API's
// operation does wins when the rest of its API is about the query's
// subject.
func TestSourceContextRanks(t *testing.T) {
	es := []Entry{
		{Kind: KindOperation, ID: "maps.getRoute", Source: "maps", Name: "getRoute", Summary: "Get a route", Description: "Directions between two points."},
		{Kind: KindOperation, ID: "maps.travelTime", Source: "maps", Name: "travelTime", Summary: "Travel time", Description: "Driving or walking duration to the airport or any place."},
		{Kind: KindOperation, ID: "maps.nearby", Source: "maps", Name: "nearby", Summary: "Places nearby", Description: "Airports, stations and shops near a point; driving distance."},
		{Kind: KindOperation, ID: "hr.getOffice", Source: "hr", Name: "getOffice", Summary: "Get an office", Description: "Directions to an office of the company."},
		{Kind: KindOperation, ID: "hr.listEmployees", Source: "hr", Name: "listEmployees", Summary: "List employees", Description: "Everyone on the payroll."},
	}
	on := sourceIndex(t, es...)
	o := DefaultOptions()
	o.SourceWeight = 0
	off, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := off.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	const q = "directions for driving to the airport"
	rank := func(ix *Index, id string) int {
		for i, h := range ix.Search(q, nil, 10) {
			if h.Entry.ID == id {
				return i
			}
		}
		return -1
	}
	// Both say "directions", in a name of two words; only maps is about
	// driving to airports, and the rest of its API says so.
	if r, o := rank(on, "maps.getRoute"), rank(on, "hr.getOffice"); r < 0 || r > o {
		t.Fatalf("with source context: maps.getRoute at %d, hr.getOffice at %d", r, o)
	}
	if r, o := rank(off, "maps.getRoute"), rank(off, "hr.getOffice"); r < o {
		t.Fatalf("without source context maps.getRoute (%d) already beats hr.getOffice (%d): the case shows nothing", r, o)
	}
	// The bonus is the weight times the source's score, on top of the
	// entry's own: compare one entry's score with and without.
	score := func(ix *Index, id string) float64 {
		for _, h := range ix.Search(q, nil, 10) {
			if h.Entry.ID == id {
				return h.Score
			}
		}
		return 0
	}
	if !(score(on, "hr.getOffice") > score(off, "hr.getOffice")) || !(score(on, "maps.getRoute")-score(off, "maps.getRoute") > score(on, "hr.getOffice")-score(off, "hr.getOffice")) {
		t.Fatalf("bonuses: maps %v -> %v, hr %v -> %v", score(off, "maps.getRoute"), score(on, "maps.getRoute"), score(off, "hr.getOffice"), score(on, "hr.getOffice"))
	}
}

// Registries that group unrelated entries under one source (agents,
// capabilities, tools) get no aggregate and no bonus.
func TestSourceContextKinds(t *testing.T) {
	ix := sourceIndex(t,
		Entry{Kind: KindAgent, ID: "agent.a", Source: "agents", Name: "a", Summary: "Translate text"},
		Entry{Kind: KindAgent, ID: "agent.b", Source: "agents", Name: "b", Summary: "Summarize text"},
		Entry{Kind: KindTool, ID: "op.x", Source: "operations", Name: "x", Summary: "Translate a file"},
		Entry{Kind: KindKnowledge, ID: "kb#0", Source: "kb", Name: "kb", Summary: "Translate guide"},
		Entry{Kind: KindAPI, ID: "crm", Source: "crm", Name: "CRM", Description: "Contacts"},
	)
	if got := slices.Sorted(maps.Keys(sourceDocs(ix))); !slices.Equal(got, []string{"crm", "kb"}) {
		t.Fatalf("aggregates of %v, want crm and kb", got)
	}
	o := DefaultOptions()
	o.SourceWeight = 0
	off, _ := NewIndex(o)
	_ = off.Upsert(ix.Entries(nil)...)
	a, b := ix.Search("translate", nil, 10), off.Search("translate", nil, 10)
	for i := range a {
		if a[i].Entry.Kind != KindKnowledge && a[i].Score != scoreOf(b, a[i].Entry.ID) {
			t.Fatalf("%s: %v with source context, %v without", a[i].Entry.ID, a[i].Score, scoreOf(b, a[i].Entry.ID))
		}
	}
}

func scoreOf(hits []Hit, id string) float64 {
	for _, h := range hits {
		if h.Entry.ID == id {
			return h.Score
		}
	}
	return -1
}

// Aggregates written through any mix of upserts, replaces and removals
// are exactly those of an index built at once from the live entries, and
// a source with no entry left has none.
func TestSourceAggregatesFollowWrites(t *testing.T) {
	ix := New()
	var live []Entry
	for i := range 60 {
		src := fmt.Sprintf("api%d", i%4)
		e := Entry{Kind: KindOperation, ID: fmt.Sprintf("%s.op%d", src, i), Source: src, Name: fmt.Sprintf("op%d", i),
			Summary: fmt.Sprintf("word%d shared", i%7), Description: "some description " + src}
		if err := ix.Upsert(e); err != nil {
			t.Fatal(err)
		}
	}
	// Churn: remove some, change some, replace one source whole, drop one.
	for i := 0; i < 60; i += 5 {
		ix.Remove(Key{KindOperation, fmt.Sprintf("api%d.op%d", i%4, i)})
	}
	for i := 1; i < 60; i += 7 {
		_ = ix.Upsert(Entry{Kind: KindOperation, ID: fmt.Sprintf("api%d.op%d", i%4, i), Source: fmt.Sprintf("api%d", i%4), Name: "changed", Summary: "changed text"})
	}
	if err := ix.Replace(KindOperation, "api2", []Entry{{ID: "api2.only", Name: "only", Summary: "the only one"}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Replace(KindOperation, "api3", nil); err != nil {
		t.Fatal(err)
	}
	live = ix.Entries(nil)
	fresh := sourceIndex(t, live...)
	got, want := sourceDocs(ix), sourceDocs(fresh)
	if !slices.Equal(slices.Sorted(maps.Keys(got)), []string{"api0", "api1", "api2"}) {
		t.Fatalf("aggregates of %v", slices.Sorted(maps.Keys(got)))
	}
	for src, w := range want {
		g := got[src]
		if g == nil || g.lens != w.lens || !slices.Equal(g.terms, w.terms) {
			t.Fatalf("%s: aggregate %+v, want %+v", src, g, w)
		}
	}
	// Scores use live aggregates only, so they match the fresh index's.
	for _, q := range []string{"shared word3", "changed", "the only one", "description api1"} {
		a, b := ix.Search(q, nil, 100), fresh.Search(q, nil, 100)
		sa := ix.sourceScores(ix.cur.Load().sources, ix.expand(ix.parse(q)))
		sb := fresh.sourceScores(fresh.cur.Load().sources, fresh.expand(fresh.parse(q)))
		if !maps.Equal(sa, sb) {
			t.Fatalf("%q: source scores %v, fresh %v", q, sa, sb)
		}
		if len(a) != len(b) {
			t.Fatalf("%q: %d hits, fresh %d", q, len(a), len(b))
		}
	}
}
