package discovery

import (
	"testing"
)

func wordnetIndex(t *testing.T, change func(*WordNetOptions)) *Index {
	t.Helper()
	o := DefaultOptions()
	o.WordNet.Weight = 0.5
	if change != nil {
		change(&o.WordNet)
	}
	ix, err := NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(
		Entry{Kind: KindOperation, ID: "billing.listBills", Name: "listBills", Summary: "List the bills of a customer"},
		Entry{Kind: KindOperation, ID: "files.deleteFile", Name: "deleteFile", Summary: "Delete a file"},
		Entry{Kind: KindOperation, ID: "files.listFiles", Name: "listFiles", Summary: "List files in a folder"},
		Entry{Kind: KindOperation, ID: "hr.getPaycheck", Name: "getPaycheck", Summary: "Get a paycheck of an employee"},
	); err != nil {
		t.Fatal(err)
	}
	return ix
}

func expanded(ix *Index, query string) map[string]float64 {
	q := ix.parse(query)
	out := map[string]float64{}
	for _, ts := range ix.expandWordNet(ix.cur.Load(), q, ix.expand(q)) {
		out[ts.term] = ts.weight
	}
	return out
}

func TestWordNetExpansion(t *testing.T) {
	ix := wordnetIndex(t, nil)
	// invoice is absent; its synonym bill is in the index.
	got := expanded(ix, "show the invoices")
	if got["invoic"] != 1 || got["bill"] != 0.5 {
		t.Fatalf("invoices: %v", got)
	}
	if hits := ix.Search("invoices", nil, 1); len(hits) != 1 || hits[0].Entry.ID != "billing.listBills" {
		t.Fatalf("invoices: %+v", hits)
	}
	// A word the index holds is not expanded (max_df 0).
	if got := expanded(ix, "bill"); len(got) != 1 {
		t.Fatalf("bill: %v", got)
	}
	// A related word the index lacks is not added; stop words and numbers
	// are not expanded.
	for term := range expanded(ix, "the 42 invoices") {
		if ix.cur.Load().df(term) == 0 && term != "invoic" {
			t.Fatalf("added %q, absent from the index", term)
		}
	}
	// Off: nothing added, and no thesaurus loaded.
	o := DefaultOptions()
	o.WordNet.Weight = 0
	ix0, err := NewIndex(o)
	if err != nil || ix0.wn != nil {
		t.Fatalf("off: error %v, thesaurus loaded %v", err, ix0.wn != nil)
	}
}

func TestWordNetRelationsAndDF(t *testing.T) {
	// Hypernyms come at half the weight: invoice is a kind of statement.
	ix := wordnetIndex(t, func(w *WordNetOptions) { w.Hypernyms = true })
	if err := ix.Upsert(Entry{Kind: KindOperation, ID: "bank.getStatement", Name: "getStatement", Summary: "Get a bank statement"}); err != nil {
		t.Fatal(err)
	}
	got := expanded(ix, "invoice")
	if got["bill"] != 0.5 || got["statement"] != 0.25 {
		t.Fatalf("invoice with hypernyms: %v", got)
	}
	// max_terms bounds what one word adds.
	ix1 := wordnetIndex(t, func(w *WordNetOptions) { w.Hypernyms, w.MaxTerms = true, 1 })
	if err := ix1.Upsert(Entry{Kind: KindOperation, ID: "bank.getStatement", Name: "getStatement", Summary: "Get a bank statement"}); err != nil {
		t.Fatal(err)
	}
	if got := expanded(ix1, "invoice"); len(got) != 2 {
		t.Fatalf("max_terms 1: %v", got)
	}
	// A word the index holds in few entries (1 of 5) is expanded when
	// max_df allows it, and not with max_df 0.
	ix2 := wordnetIndex(t, func(w *WordNetOptions) { w.MaxDF = 0.5 })
	if err := ix2.Upsert(Entry{Kind: KindOperation, ID: "billing.getInvoice", Name: "getInvoice", Summary: "Get an invoice"}); err != nil {
		t.Fatal(err)
	}
	if got := expanded(ix2, "invoice"); got["bill"] != 0.5 {
		t.Fatalf("rare word with max_df 0.5: %v", got)
	}
	ix3 := wordnetIndex(t, nil)
	if err := ix3.Upsert(Entry{Kind: KindOperation, ID: "billing.getInvoice", Name: "getInvoice", Summary: "Get an invoice"}); err != nil {
		t.Fatal(err)
	}
	if got := expanded(ix3, "invoice"); len(got) != 1 {
		t.Fatalf("present word with max_df 0: %v", got)
	}
}

func TestWordNetOptionsCheck(t *testing.T) {
	for _, w := range []WordNetOptions{
		{Weight: 1.5, MaxTerms: 1}, {Weight: -1, MaxTerms: 1}, {Weight: 0.5, MaxDF: 2, MaxTerms: 1},
		{Weight: 0.5, Senses: -1, MaxTerms: 1}, {Weight: 0.5}, {Weight: 0.5, MaxDF: -0.1, MaxTerms: 1},
	} {
		o := DefaultOptions()
		o.WordNet = w
		if _, err := NewIndex(o); err == nil {
			t.Errorf("%+v accepted", w)
		}
	}
	// Off, the other settings are not checked.
	o := DefaultOptions()
	o.WordNet = WordNetOptions{MaxTerms: -3}
	if _, err := NewIndex(o); err != nil {
		t.Error(err)
	}
}
