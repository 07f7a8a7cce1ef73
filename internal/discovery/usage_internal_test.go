package discovery

import "testing"

// The same usage again publishes no snapshot: a reload after a prune
// leaves the entries it did not change alone. A different count does.
func TestSetUsageUnchangedWritesNothing(t *testing.T) {
	ix := New()
	k := Key{KindOperation, "billing.void"}
	if err := ix.Upsert(Entry{Kind: k.Kind, ID: k.ID, Name: "voidInvoice"}); err != nil {
		t.Fatal(err)
	}
	ix.SetUsage(k, Usage{"annul": 1, "cancel": 2})
	before := ix.cur.Load()
	ix.SetUsage(k, Usage{"cancel": 2, "annul": 1, "Not A Term": 3})
	if ix.cur.Load() != before {
		t.Fatal("the same usage wrote the entry again")
	}
	ix.SetUsage(k, Usage{"annul": 1, "cancel": 3})
	if ix.cur.Load() == before {
		t.Fatal("a new count was not written")
	}
}
