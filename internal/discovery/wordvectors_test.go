package discovery

import (
	"strings"
	"testing"
)

func wvIndex(t *testing.T, change func(*WordVectorOptions)) *Index {
	t.Helper()
	o := DefaultOptions()
	o.WordNet.Weight = 0 // the word vectors alone
	if change != nil {
		change(&o.WordVectors)
	}
	ix, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(
		Entry{Kind: KindOperation, ID: "fleet.listCars", Name: "listCars", Summary: "List the cars of the fleet"},
		Entry{Kind: KindOperation, ID: "files.deleteFile", Name: "deleteFile", Summary: "Delete a file"},
		Entry{Kind: KindOperation, ID: "files.listFiles", Name: "listFiles", Summary: "List files in a folder"},
		Entry{Kind: KindOperation, ID: "crm.remindCustomer", Name: "remindCustomer", Summary: "Send a customer a reminder"},
		Entry{Kind: KindOperation, ID: "weather.getForecast", Name: "getForecast", Summary: "Weather forecast for a city"},
	); err != nil {
		t.Fatal(err)
	}
	return ix
}

// wvExpanded returns the terms a query searches for after the word vector
// expansion, with their weights.
func wvExpanded(ix *Index, query string) map[string]float64 {
	q := ix.parse(query)
	out := map[string]float64{}
	for _, ts := range ix.expandWordVectors(ix.cur.Load(), q, ix.expand(q)) {
		out[ts.term] = ts.weight
	}
	return out
}

func TestWordVectorExpansion(t *testing.T) {
	ix := wvIndex(t, nil)
	// automobile is absent; car, whose vector is close, is in the index.
	if got := wvExpanded(ix, "automobiles"); got["automobil"] != 1 || got["car"] != DefaultWordVectors.Weight {
		t.Fatalf("automobiles: %v", got)
	}
	if hits := ix.Search("automobiles", nil, 1); len(hits) != 1 || hits[0].Entry.ID != "fleet.listCars" {
		t.Fatalf("automobiles: %+v", hits)
	}
	if hits := ix.Search("rain in town", nil, 1); len(hits) != 1 || hits[0].Entry.ID != "weather.getForecast" {
		t.Fatalf("rain in town: %+v", hits)
	}
	// A word the index holds in more than max_df of its entries is not
	// expanded (1 of 5 is more than 0.005).
	if got := wvExpanded(ix, "file"); len(got) != 1 {
		t.Fatalf("file: %v", got)
	}
	// A word without a vector, and stop words, add nothing.
	if got := wvExpanded(ix, "the zzqxv"); len(got) != 1 {
		t.Fatalf("zzqxv: %v", got)
	}
	// Every added term is in the index, none is the word's own, and each
	// query word adds at most max_terms.
	wide := wvIndex(t, func(o *WordVectorOptions) { o.MaxDF, o.AddedMaxDF = 1, 1 })
	got := wvExpanded(wide, "file")
	if len(got) < 3 {
		t.Fatalf("file, max_df 1: %v", got)
	}
	for term := range got {
		if wide.cur.Load().df(term) == 0 {
			t.Fatalf("added %q, absent from the index", term)
		}
	}
	one := wvIndex(t, func(o *WordVectorOptions) { o.MaxDF, o.AddedMaxDF, o.MaxTerms = 1, 1, 1 })
	if got := wvExpanded(one, "file"); len(got) != 2 {
		t.Fatalf("file, max_terms 1: %v", got)
	}
	// The closest is the one kept: it is among the terms a wider bound adds.
	for term := range wvExpanded(one, "file") {
		if _, ok := got[term]; !ok {
			t.Fatalf("max_terms 1 kept %q, not among %v", term, got)
		}
	}
	// A word in more than added_max_df of the entries is not added (list
	// is in 2 of 5), one in a single entry always is (folder).
	rare := wvIndex(t, func(o *WordVectorOptions) { o.MaxDF, o.AddedMaxDF = 1, 0.3 })
	if got := wvExpanded(rare, "file"); got["list"] != 0 || got["folder"] == 0 {
		t.Fatalf("file, added_max_df 0.3: %v", got)
	}
	if got["list"] == 0 {
		t.Fatalf("file, added_max_df 1 adds no list: %v", got)
	}
	// A similarity of 1 is never reached by another word.
	strict := wvIndex(t, func(o *WordVectorOptions) { o.MaxDF, o.MinSimilarity = 1, 1 })
	if got := wvExpanded(strict, "file automobiles"); len(got) != 2 {
		t.Fatalf("min_similarity 1: %v", got)
	}
}

func TestWordVectorsOff(t *testing.T) {
	ix := wvIndex(t, func(o *WordVectorOptions) { o.Weight = 0 })
	if ix.wv != nil {
		t.Fatal("table loaded with the expansion off")
	}
	if hits := ix.Search("automobiles", nil, 5); len(hits) != 0 {
		t.Fatalf("automobiles found %+v with the expansion off", hits)
	}
}

// The closest terms are remembered per snapshot: a write makes a new one,
// so what it adds or removes is seen by the next search.
func TestWordVectorsFollowWrites(t *testing.T) {
	ix := wvIndex(t, nil)
	cars := Key{Kind: KindOperation, ID: "fleet.listCars"}
	for range 2 { // the second time from the cache
		if hits := ix.Search("automobiles", nil, 1); len(hits) != 1 || hits[0].Entry.ID != cars.ID {
			t.Fatalf("automobiles: %+v", hits)
		}
	}
	if ix.Remove(cars) != 1 {
		t.Fatal("not removed")
	}
	if hits := ix.Search("automobiles", nil, 5); len(hits) != 0 {
		t.Fatalf("automobiles after the cars went: %+v", hits)
	}
	if err := ix.Upsert(Entry{Kind: KindOperation, ID: "fleet.listVehicles", Name: "listVehicles", Summary: "List the vehicles"}); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("automobiles", nil, 1); len(hits) != 1 || hits[0].Entry.ID != "fleet.listVehicles" {
		t.Fatalf("automobiles after vehicles came: %+v", hits)
	}
}

// The cache is bounded: past maxNearCache words it starts over.
func TestWordVectorCacheBound(t *testing.T) {
	ix := wvIndex(t, func(o *WordVectorOptions) { o.MaxDF = 1 })
	s := ix.cur.Load()
	v := s.vocab
	for i := range maxNearCache + 10 {
		w := ix.wv.tab.Word(int32(i))
		v.closest(s, w, ix.stem(w), ix.wv.tab.Vector(int32(i)), 0, 4, 1)
		if len(v.near) > maxNearCache {
			t.Fatalf("%d words cached", len(v.near))
		}
	}
}

func TestWordVectorOptionsChecked(t *testing.T) {
	for _, tc := range []struct {
		change func(*WordVectorOptions)
		want   string
	}{
		{func(o *WordVectorOptions) { o.Weight = 1.5 }, "word vector weight"},
		{func(o *WordVectorOptions) { o.Weight = -0.1 }, "word vector weight"},
		{func(o *WordVectorOptions) { o.MinSimilarity = 2 }, "min_similarity"},
		{func(o *WordVectorOptions) { o.MaxTerms = 0 }, "max_terms"},
		{func(o *WordVectorOptions) { o.MaxTerms = MaxQueryTerms + 1 }, "max_terms"},
		{func(o *WordVectorOptions) { o.MaxDF = 1.1 }, "max_df"},
		{func(o *WordVectorOptions) { o.AddedMaxDF = 0 }, "added_max_df"},
		{func(o *WordVectorOptions) { o.AddedMaxDF = 1.5 }, "added_max_df"},
	} {
		o := DefaultOptions()
		tc.change(&o.WordVectors)
		if _, err := NewIndex(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", o.WordVectors, err, tc.want)
		}
	}
	// Off, the other settings are not looked at.
	o := DefaultOptions()
	o.WordVectors = WordVectorOptions{Weight: 0, MaxTerms: -1}
	if _, err := NewIndex(o); err != nil {
		t.Fatal(err)
	}
}

// Indexes with the same stemmer share one stem map.
func TestWordVectorsShared(t *testing.T) {
	a, b := wvIndex(t, nil), wvIndex(t, nil)
	if a.wv != b.wv {
		t.Fatal("two stem maps for one stemmer")
	}
	o := DefaultOptions()
	o.Stemmer = "light"
	c, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if c.wv == a.wv {
		t.Fatal("the light stemmer shares porter2's stem map")
	}
}
