package discovery_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

func ids(hits []discovery.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Entry.ID)
	}
	return out
}

func sample() []discovery.Entry {
	return []discovery.Entry{
		{Kind: discovery.KindOperation, ID: "billing.listInvoices", Source: "billing", Name: "listInvoices", Summary: "List invoices", Description: "Returns invoices, filtered by customer and status (draft, open, paid, void).", Parameters: []discovery.Param{{Name: "customerId", Description: "Customer identifier"}, {Name: "status"}}, Tags: []string{"invoices"}, Permission: "billing.listInvoices"},
		{Kind: discovery.KindOperation, ID: "billing.voidInvoice", Source: "billing", Name: "voidInvoice", Summary: "Void an invoice", Tags: []string{"invoices"}, Permission: "billing.voidInvoice"},
		{Kind: discovery.KindOperation, ID: "crm.getCustomer", Source: "crm", Name: "getCustomer", Summary: "Get a customer", Description: "Returns one customer record.", URL: "https://crm.example.com/v1/customers/{customerId}", Permission: "crm.getCustomer"},
		{Kind: discovery.KindAgent, ID: "invoice-auditor", Name: "invoice-auditor", Summary: "An agent that checks invoices for mistakes", Permission: "agents:invoice-auditor"},
		{Kind: discovery.KindTool, ID: "op.ApiCall", Name: "op.ApiCall", Summary: "Call an HTTP API", Tags: []string{"a2e"}},
	}
}

func newIndex(t testing.TB, es ...discovery.Entry) *discovery.Index {
	t.Helper()
	ix := discovery.New()
	if err := ix.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestSearchRanksByFields(t *testing.T) {
	ix := newIndex(t, sample()...)
	got := ids(ix.Search("list the invoices of a customer", nil, 3))
	if len(got) == 0 || got[0] != "billing.listInvoices" {
		t.Fatalf("got %v", got)
	}
	if got := ids(ix.Search("customer record", nil, 1)); !slices.Equal(got, []string{"crm.getCustomer"}) {
		t.Fatalf("got %v", got)
	}
	if got := ix.Search("zebra", nil, 5); len(got) != 0 {
		t.Fatalf("unknown word matched %v", got)
	}
	if got := ix.Search("invoice", nil, 0); got != nil {
		t.Fatalf("k=0 returned %v", got)
	}
}

// A refused entry is never returned and never takes a place in the top k:
// with k=1 the best permitted entry comes back, not nothing.
func TestFilterAppliesBeforeRanking(t *testing.T) {
	ix := newIndex(t, sample()...)
	allow := func(e discovery.Entry) bool { return e.Permission != "billing.listInvoices" }
	got := ids(ix.Search("list invoices", allow, 1))
	if len(got) != 1 || got[0] == "billing.listInvoices" {
		t.Fatalf("got %v", got)
	}
	none := func(discovery.Entry) bool { return false }
	if got := ix.Search("invoices", none, 10); len(got) != 0 {
		t.Fatalf("deny-all filter returned %v", ids(got))
	}
	if got := ix.Search("", none, 10); len(got) != 0 {
		t.Fatalf("deny-all filter listed %v", ids(got))
	}
	if got := ix.Entries(none); len(got) != 0 {
		t.Fatalf("deny-all filter listed %d entries", len(got))
	}
}

func TestQueryQualifiers(t *testing.T) {
	ix := newIndex(t, sample()...)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"invoices kind:agent", []string{"invoice-auditor"}},
		{"invoice source:billing -draft", []string{"billing.voidInvoice"}},
		{"tag:A2E", []string{"op.ApiCall"}},
		{"kind:operation api:crm", []string{"crm.getCustomer"}},
		{"invoice kind:nothing", nil},
	} {
		if got := ids(ix.Search(tc.q, nil, 10)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestIncrementalUpdates(t *testing.T) {
	ix := newIndex(t, sample()...)
	if ix.Len() != 5 {
		t.Fatalf("len %d", ix.Len())
	}
	// Upsert replaces by (kind, id), even when the source changes.
	e := sample()[2]
	e.Source, e.Summary = "crm2", "Fetch a client account"
	if err := ix.Upsert(e); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 5 {
		t.Fatalf("len after upsert %d", ix.Len())
	}
	if got := ids(ix.Search("client account", nil, 5)); !slices.Equal(got, []string{"crm.getCustomer"}) {
		t.Fatalf("got %v", got)
	}
	if got, _ := ix.Get(discovery.Key{Kind: discovery.KindOperation, ID: "crm.getCustomer"}); got.Source != "crm2" {
		t.Fatalf("source %q", got.Source)
	}
	// Replace swaps the whole (kind, source).
	if err := ix.Replace(discovery.KindOperation, "billing", []discovery.Entry{{ID: "billing.refund", Name: "refundPayment", Summary: "Refund a payment"}}); err != nil {
		t.Fatal(err)
	}
	if got := ids(ix.Search("invoices", nil, 5)); !slices.Equal(got, []string{"invoice-auditor"}) {
		t.Fatalf("after replace: %v", got)
	}
	if got := ids(ix.Search("refund", nil, 5)); !slices.Equal(got, []string{"billing.refund"}) {
		t.Fatalf("after replace: %v", got)
	}
	if n := ix.Remove(discovery.Key{Kind: discovery.KindOperation, ID: "billing.refund"}, discovery.Key{Kind: discovery.KindAgent, ID: "nope"}); n != 1 {
		t.Fatalf("removed %d", n)
	}
	if got := ix.Search("refund", nil, 5); len(got) != 0 {
		t.Fatalf("after remove: %v", ids(got))
	}
	if err := ix.Replace(discovery.KindOperation, "crm2", nil); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 2 {
		t.Fatalf("len %d", ix.Len())
	}
}

func TestInvalidEntriesChangeNothing(t *testing.T) {
	ix := newIndex(t, sample()...)
	for _, bad := range [][]discovery.Entry{
		{{Kind: "widget", ID: "x"}},
		{{Kind: discovery.KindTool}},
		{{Kind: discovery.KindTool, ID: "ok"}, {Kind: discovery.KindTool, ID: ""}},
	} {
		if err := ix.Upsert(bad...); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
	if err := ix.Replace(discovery.KindTool, "s", []discovery.Entry{{Kind: discovery.KindAgent, ID: "a"}}); err == nil || !strings.Contains(err.Error(), "agent") {
		t.Fatalf("kind mismatch: %v", err)
	}
	if ix.Len() != 5 {
		t.Fatalf("len %d", ix.Len())
	}
}

func TestOptionsChecked(t *testing.T) {
	for _, o := range []discovery.Options{
		{},
		{K1: 1.2, B: 2, Weights: discovery.DefaultOptions().Weights},
		{K1: 1.2, B: 0.5},
		{K1: 1.2, B: 0.5, Weights: discovery.Weights{Name: -1, Summary: 1}},
		{K1: 1.2, B: 0.5, Weights: discovery.DefaultOptions().Weights, Stemmer: "snowball"},
		{K1: 1.2, B: 0.5, Weights: discovery.DefaultOptions().Weights, FieldB: &discovery.Weights{Description: 1.5}},
		{K1: 1.2, B: 0.5, Weights: discovery.DefaultOptions().Weights, PhraseWeight: -1},
		{K1: 1.2, B: 0.5, Weights: discovery.DefaultOptions().Weights, ExpansionWeight: 2},
	} {
		if _, err := discovery.NewIndex(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := discovery.NewIndex(discovery.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
}

var newWords = strings.Fields(`car vehicle truck device gadget machine tool instrument
apparatus engine motor bicycle train plane ship boat invoice receipt bill payment`)

// Readers and writers at once (run with -race): every search sees a
// consistent snapshot.
func TestConcurrentReadersAndWriters(t *testing.T) {
	ix := newIndex(t, sample()...)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				src := fmt.Sprintf("s%d", w)
				_ = ix.Replace(discovery.KindOperation, src, []discovery.Entry{{ID: fmt.Sprintf("%s.op%d", src, i), Name: "listWidgets", Summary: "List widgets"}})
				// New words on each write: the list of terms with word vectors
				// grows while readers scan it.
				_ = ix.Upsert(discovery.Entry{Kind: discovery.KindTool, ID: fmt.Sprintf("t%d", i%7), Summary: "widget tool " + newWords[(i+w*100)%len(newWords)]})
				ix.Remove(discovery.Key{Kind: discovery.KindTool, ID: fmt.Sprintf("t%d", (i+3)%7)})
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				// gadgets and automobiles are in no entry: the word vectors
				// widen them.
				hits := ix.Search([]string{"widgets", "gadgets", "automobiles"}[i%3], nil, 5)
				for i := 1; i < len(hits); i++ {
					if hits[i].Score > hits[i-1].Score {
						t.Error("results out of order")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// Entries written one by one (through many merges) rank exactly as the
// same entries written at once; after removals and re-additions the index
// holds exactly the live entries.
func TestIncrementalMatchesBatch(t *testing.T) {
	es, qs := loadDataset(t)
	batch := newIndex(t, es...)
	inc := discovery.New()
	for _, e := range es {
		if err := inc.Upsert(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range qs {
		a, b := batch.Search(q.Query, nil, 10), inc.Search(q.Query, nil, 10)
		if !slices.Equal(ids(a), ids(b)) {
			t.Fatalf("%q: batch %v, incremental %v", q.Query, ids(a), ids(b))
		}
	}
	// Churn: remove every third entry, re-add half of them with new text.
	for i, e := range es {
		if i%3 == 0 {
			inc.Remove(e.Key())
		}
	}
	for i, e := range es {
		if i%6 == 0 {
			e.Summary = "revived"
			if err := inc.Upsert(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := 0
	for i := range es {
		if i%3 != 0 || i%6 == 0 {
			want++
		}
	}
	if inc.Len() != want || len(inc.Entries(nil)) != want {
		t.Fatalf("len %d, entries %d, want %d", inc.Len(), len(inc.Entries(nil)), want)
	}
	for _, h := range inc.Search("revived", nil, 1000) {
		if h.Entry.Summary != "revived" {
			t.Fatalf("%s found by revived", h.Entry.ID)
		}
	}
	if got := len(inc.Search("revived", nil, 1000)); got != (len(es)+5)/6 {
		t.Fatalf("%d revived entries found, want %d", got, (len(es)+5)/6)
	}
}
