package discovery

import "testing"

func TestAbbreviations(t *testing.T) {
	a := compileAbbreviations(DefaultAbbreviations)
	for _, c := range []struct{ in, want string }{
		{"move my 1:1 to Friday", "move my one-on-one meeting to Friday"},
		{"PTO next week", "paid time off next week"},
		{"refund w/o a receipt", "refund without a receipt"},
		{"call off tmrw's standup", "call off tomorrow's standup"},
		{"pto eod", "paid time off end of day"},
		{`"mtg" (appt)`, `"meeting" (appointment)`},
		{"re: the invoice", "about the invoice"},
		// Only whole words: no shorthand inside another word or a path.
		{"beta photo a/w/b msgsx", "beta photo a/w/b msgsx"},
		{"", ""},
		{"PTO. café ooo", "paid time off. café out of office"},
		{"  tmrw\t(eod)  ", "  tomorrow\t(end of day)  "},
		{"ünïcode msg", "ünïcode message"},
	} {
		if got := a.expand(c.in); got != c.want {
			t.Errorf("expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if compileAbbreviations(nil) != nil || compileAbbreviations(nil).expand("1:1") != "1:1" {
		t.Fatal("no abbreviations: text unchanged")
	}
}

func TestAbbreviationsInSearch(t *testing.T) {
	entries := []Entry{
		{Kind: KindOperation, ID: "calendar.moveMeeting", Name: "moveMeeting", Summary: "Move a meeting to another time"},
		{Kind: KindOperation, ID: "storage.moveFile", Name: "moveFile", Summary: "Move a file to another folder"},
	}
	ix := New()
	if err := ix.Upsert(entries...); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("move my 1:1 to Friday", nil, 1); len(hits) != 1 || hits[0].Entry.ID != "calendar.moveMeeting" {
		t.Fatalf("1:1: %+v", hits)
	}
	o := DefaultOptions()
	o.Abbreviations = nil
	off, _ := NewIndex(o)
	_ = off.Upsert(entries...)
	for _, qt := range off.Explain("move my 1:1 to Friday") {
		if qt.Term == "meet" && qt.Via == ViaQuery {
			t.Fatalf("abbreviations off, still %+v", qt)
		}
	}
	found := false
	for _, qt := range ix.Explain("move my 1:1 to Friday") {
		found = found || qt.Term == "meet" && qt.Via == ViaQuery
	}
	if !found {
		t.Fatalf("1:1 is not searched as a meeting: %+v", ix.Explain("move my 1:1 to Friday"))
	}
}
