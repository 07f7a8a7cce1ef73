package discovery

import (
	"testing"
)

func TestCompounds(t *testing.T) {
	ix := New()
	if err := ix.Upsert(
		Entry{Kind: KindOperation, ID: "support.addAgent", Source: "support", Name: "addAgent", Summary: "Add a help desk agent"},
		Entry{Kind: KindOperation, ID: "calendar.bookRoom", Source: "calendar", Name: "bookRoom", Summary: "Book a meeting room for the board"},
		Entry{Kind: KindOperation, ID: "identity.login", Source: "identity", Name: "login", Summary: "Start a session"},
		Entry{Kind: KindOperation, ID: "api.v12", Source: "api", Name: "release12", Summary: "Release 12"},
	); err != nil {
		t.Fatal(err)
	}
	weights := func(query string) map[string]float64 {
		out := map[string]float64{}
		s := ix.cur.Load()
		q := ix.parse(query)
		for _, ts := range ix.expandCompounds(s, q, ix.expand(q)) {
			out[ts.term] = ts.weight
		}
		return out
	}
	// A word the index lacks splits into two it holds.
	if w := weights("helpdesk"); w["help"] != 0.5 || w["desk"] != 0.5 {
		t.Fatalf("helpdesk: %v", w)
	}
	if w := weights("the boardroom"); w["board"] != 0.5 || w["room"] != 0.5 {
		t.Fatalf("boardroom: %v", w)
	}
	// Two adjacent words join into one it holds.
	if w := weights("log in for me"); w["login"] != 0.5 {
		t.Fatalf("log in: %v", w)
	}
	// Digits joined are a number, dropped like any other ("1.2" is not 12).
	if w := weights("submit 1.2 million"); w["12"] != 0 {
		t.Fatalf("1.2: %v", w)
	}
	// A word the index holds is left alone; a split needs halves of three
	// letters or more that the index holds.
	if w := weights("login"); len(w) != 1 {
		t.Fatalf("login: %v", w)
	}
	if w := weights("deskhelpx"); len(w) != 1 {
		t.Fatalf("deskhelpx: %v", w)
	}
	if hits := ix.Search("helpdesk", nil, 1); len(hits) != 1 || hits[0].Entry.ID != "support.addAgent" {
		t.Fatalf("helpdesk found %v", hits)
	}
	o := DefaultOptions()
	o.CompoundWeight = 0
	off, _ := NewIndex(o)
	_ = off.Upsert(ix.Entries(nil)...)
	if hits := off.Search("helpdesk", nil, 1); len(hits) != 0 {
		t.Fatalf("compounds off: %v", hits)
	}
}
