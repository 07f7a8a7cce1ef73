package discovery

import (
	"fmt"
	"slices"
	"testing"
)

func TestValueWords(t *testing.T) {
	cases := []struct {
		query string
		want  []string
	}{
		{"email the report to finance@example.com", []string{"email", "address"}},
		{"what is at 48.8584, 2.2945", []string{"latitude", "longitude", "coordinates"}},
		{"what is at -33.86,151.21", []string{"latitude", "longitude", "coordinates"}},
		{"refund $40 to her card", []string{"amount", "price"}},
		{"charge 12.50 EUR", []string{"amount", "price"}},
		{"move the sync to Friday", []string{"date"}},
		{"invoices due before 2026-01-31", []string{"date"}},
		{"standup at 9:30", []string{"time"}},
		{"call at 3pm tomorrow", []string{"date", "time"}},
		{"text +1 (415) 555-0100", []string{"phone", "number"}},
		{"block 10.0.0.12", []string{"ip", "address"}},
		{"open https://example.com/page", []string{"url", "link"}},
		{"call 415-555-0199", []string{"phone", "number"}},
		{"call (415) 555 0199", []string{"phone", "number"}},
		{"post in #deploys that it is out", []string{"channel"}},
		{"#q3-campaign is done", []string{"channel"}},
		// No value: nothing added. A version, a count or an id is not one.
		{"list open bugs", nil},
		{"upgrade to v2.1 and keep 30 items", nil},
		{"ticket 4521", nil},
		{"ticket #4521 and issue#12", nil},
		{"hire a C# developer", nil},
		{"order 12345678", nil},
	}
	for _, c := range cases {
		got := valueWords(c.query)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("valueWords(%q) = %q, want %q", c.query, got, want)
		}
	}
}

// A value's type words join the query at ValueWeight, after its own words,
// and only when the option is on; they never duplicate a query word.
func TestValueTermsInQuery(t *testing.T) {
	o := DefaultOptions()
	o.ValueWeight = 0.5
	ix, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	terms := ix.expand(ix.parse("send an email to jane@acme.com"))
	var weights []string
	for _, ts := range terms {
		weights = append(weights, fmt.Sprintf("%s=%g", ts.term, ts.weight))
	}
	// "email" is a query word already (weight 1); "address" comes from the value.
	if !slices.Contains(weights, "email=1") || !slices.Contains(weights, "address=0.5") {
		t.Fatalf("terms %v", weights)
	}
	o.ValueWeight = 0
	ix, _ = NewIndex(o)
	for _, ts := range ix.expand(ix.parse("send it to jane@acme.com")) {
		if ts.term == "address" {
			t.Fatalf("value words added with the option off: %v", ts)
		}
	}
}

// A query whose only content is a value still searches, by the value's
// type, instead of listing every entry.
func TestValueOnlyQuery(t *testing.T) {
	ix := New()
	if err := ix.Upsert(
		Entry{Kind: KindOperation, ID: "maps.autocompletePlace", Source: "maps", Name: "autocompletePlace", Summary: "Autocomplete a place"},
		Entry{Kind: KindOperation, ID: "maps.reverseGeocode", Source: "maps", Name: "reverseGeocode", Summary: "Address at a point", Parameters: []Param{{Name: "lat", Description: "latitude"}, {Name: "lng", Description: "longitude"}}},
	); err != nil {
		t.Fatal(err)
	}
	hits := ix.Search("what is at 48.8584, 2.2945", nil, 5)
	if len(hits) != 1 || hits[0].Entry.ID != "maps.reverseGeocode" || hits[0].Score <= 0 {
		t.Fatalf("hits %+v", hits)
	}
	// Without the option it is a query of stop words and numbers: nothing
	// to search by, so nothing is found (rather than every entry listed).
	o := DefaultOptions()
	o.ValueWeight = 0
	off, _ := NewIndex(o)
	_ = off.Upsert(ix.Entries(nil)...)
	if hits := off.Search("what is at 48.8584, 2.2945", nil, 5); len(hits) != 0 {
		t.Fatalf("off: %+v", hits)
	}
	// A query of qualifiers only still lists.
	if hits := off.Search("kind:operation", nil, 5); len(hits) != 2 || hits[0].Score != 0 {
		t.Fatalf("qualifiers only: %+v", hits)
	}
}

// The characters of an opaque value (an email address, a URL, an IP
// address, a phone number, a #channel) are not searched: "jane" and "acme"
// name nothing. Its type words are; with values off, the text is as typed.
func TestOpaqueValuesMasked(t *testing.T) {
	ix := New()
	q := ix.parse("find the contact for jane@acme.com and post it in #deploys, see https://wiki.example.org/x")
	for _, w := range []string{"jane", "acm", "deploy", "wiki", "exampl", "org"} {
		if slices.Contains(q.Terms, w) {
			t.Errorf("%q searched: %v", w, q.Terms)
		}
	}
	for _, w := range []string{"find", "contact", "post"} {
		if !slices.Contains(q.Terms, w) {
			t.Errorf("%q not searched: %v", w, q.Terms)
		}
	}
	for _, w := range []string{"email", "address", "channel", "url"} {
		if !slices.Contains(q.values, w) {
			t.Errorf("type word %q missing: %v", w, q.values)
		}
	}
	o := DefaultOptions()
	o.ValueWeight = 0
	off, _ := NewIndex(o)
	if q := off.parse("jane@acme.com"); !slices.Contains(q.Terms, "jane") || len(q.values) != 0 {
		t.Fatalf("values off: %v %v", q.Terms, q.values)
	}
}
