package catalog_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/catalog"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// learningCatalog is a catalog of the shop API that learns from use, on
// the store in dir (closed when the test ends, or by the returned func),
// with an account "a" granted the shop.
func learningCatalog(t *testing.T, dir string, retention time.Duration) (*catalog.Service, *account.Principal, func()) {
	t.Helper()
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	closeStore := func() {
		if !closed {
			closed = true
			_ = st.Close()
		}
	}
	t.Cleanup(closeStore)
	if _, err := st.GetAccount(ctx, "a"); fault.KindOf(err) == fault.NotFound {
		if _, err := st.CreateAccount(ctx, store.Account{ID: "a", Name: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	c := catalog.New(catalog.Config{Store: st, Usage: st, UsageRetention: retention})
	if err := c.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(ctx, "shop", "", "json", []byte(shop), "admin"); err != nil {
		t.Fatal(err)
	}
	return c, &account.Principal{ID: "a", Permissions: policy.Permissions{APIs: []string{"shop"}}}, closeStore
}

func TestLearnFindsAndKeeps(t *testing.T) {
	dir := t.TempDir()
	c, a, done := learningCatalog(t, dir, 0)
	if !c.Learning() {
		t.Fatal("a catalog with a usage store does not learn")
	}
	if got := ids(c.Search(ctx, a, "giraffe", "", 1)); len(got) != 0 {
		t.Fatalf("before: %v", got)
	}
	l, err := c.Learn(ctx, a, "giraffe", "", "shop.refundOrder")
	if err != nil || l.Kind != discovery.KindOperation || !slices.Equal(l.Words, []string{"giraff"}) || l.New != 1 {
		t.Fatalf("learn: %+v, %v", l, err)
	}
	if got := ids(c.Search(ctx, a, "giraffe", "", 1)); !slices.Equal(got, []string{"shop.refundOrder"}) {
		t.Fatalf("after: %v", got)
	}
	// A query with nothing to teach records nothing.
	if l, err := c.Learn(ctx, a, "the of 4521", "", "shop.refundOrder"); err != nil || len(l.Words) != 0 || l.Words == nil || l.New != 0 {
		t.Fatalf("nothing to learn: %+v, %v", l, err)
	}
	// A new catalog on the same store starts with what was learnt.
	done()
	c2, _, _ := learningCatalog(t, dir, 0)
	if got := ids(c2.Search(ctx, a, "giraffe", "", 1)); !slices.Equal(got, []string{"shop.refundOrder"}) {
		t.Fatalf("reloaded: %v", got)
	}
	if u := c2.Usage("", ""); len(u) != 1 || u[0].ID != "shop.refundOrder" || u[0].Words["giraff"] != 1 {
		t.Fatalf("usage: %+v", u)
	}
	if u := c2.Usage(discovery.KindOperation, ""); len(u) != 1 {
		t.Fatalf("usage of a kind: %+v", u)
	}
	if u := c2.Usage(discovery.KindTool, ""); len(u) != 0 {
		t.Fatalf("usage of another kind: %+v", u)
	}
	if u := c2.Usage("", "shop.listOrders"); len(u) != 0 {
		t.Fatalf("usage of another entry: %+v", u)
	}
	// Forgetting all of it.
	if n, err := c2.Forget(ctx, "", ""); err != nil || n != 1 {
		t.Fatalf("forget: %d, %v", n, err)
	}
	if got := ids(c2.Search(ctx, a, "giraffe", "", 1)); len(got) != 0 {
		t.Fatalf("after forgetting: %v", got)
	}
}

// Words older than the retention go when the catalog loads.
func TestLearnRetention(t *testing.T) {
	dir := t.TempDir()
	c, a, done := learningCatalog(t, dir, 0)
	if _, err := c.Learn(ctx, a, "giraffe", "", "shop.refundOrder"); err != nil {
		t.Fatal(err)
	}
	done()
	kept, _, done := learningCatalog(t, dir, time.Hour)
	if got := ids(kept.Search(ctx, a, "giraffe", "", 1)); !slices.Equal(got, []string{"shop.refundOrder"}) {
		t.Fatalf("within the retention: %v", got)
	}
	done()
	time.Sleep(5 * time.Millisecond)
	pruned, _, _ := learningCatalog(t, dir, time.Millisecond)
	if got := ids(pruned.Search(ctx, a, "giraffe", "", 1)); len(got) != 0 {
		t.Fatalf("past the retention: %v", got)
	}
	if u := pruned.Usage("", ""); len(u) != 0 {
		t.Fatalf("usage past the retention: %+v", u)
	}
}

func TestLearnRefuses(t *testing.T) {
	c, a, _ := learningCatalog(t, t.TempDir(), 0)
	none := &account.Principal{ID: "a"}
	for _, tc := range []struct {
		name string
		p    *account.Principal
		kind discovery.Kind
		id   string
		want fault.Kind
	}{
		{"unknown entry", a, "", "shop.nope", fault.NotFound},
		{"not granted", none, "", "shop.refundOrder", fault.NotFound},
		{"wrong kind", a, discovery.KindTool, "shop.refundOrder", fault.NotFound},
		{"bad kind", a, "widget", "shop.refundOrder", fault.Invalid},
	} {
		if _, err := c.Learn(ctx, tc.p, "giraffe", tc.kind, tc.id); fault.KindOf(err) != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := c.Forget(ctx, discovery.KindOperation, ""); fault.KindOf(err) != fault.Invalid {
		t.Errorf("half an entry: %v", err)
	}
	off := catalog.New(catalog.Config{})
	if off.Learning() {
		t.Fatal("a catalog without a usage store learns")
	}
	if _, err := off.Learn(ctx, a, "giraffe", "", "shop.refundOrder"); fault.KindOf(err) != fault.Unavailable {
		t.Errorf("learning off: %v", err)
	}
}

// Two catalogs on one store, as two gateways on one database: what one
// learns, the other finds once it syncs (SyncUsage; feedback through it
// makes it sync every ten minutes), and what one forgets goes from the
// other at its next sync.
func TestSyncUsageAcrossCatalogs(t *testing.T) {
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateAccount(ctx, store.Account{ID: "a", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	a := &account.Principal{ID: "a", Permissions: policy.Permissions{APIs: []string{"shop"}}}
	c1 := catalog.New(catalog.Config{Store: st, Usage: st})
	c2 := catalog.New(catalog.Config{Store: st, Usage: st})
	for _, c := range []*catalog.Service{c1, c2} {
		if err := c.Load(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Import(ctx, "shop", "", "json", []byte(shop), "admin"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c1.Learn(ctx, a, "giraffe", "", "shop.refundOrder"); err != nil {
		t.Fatal(err)
	}
	if got := ids(c2.Search(ctx, a, "giraffe", "", 1)); len(got) != 0 {
		t.Fatalf("before a sync: %v", got)
	}
	if err := c2.SyncUsage(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(c2.Search(ctx, a, "giraffe", "", 1)); !slices.Equal(got, []string{"shop.refundOrder"}) {
		t.Fatalf("after a sync: %v", got)
	}
	if _, err := c1.Forget(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := c2.SyncUsage(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(c2.Search(ctx, a, "giraffe", "", 1)); len(got) != 0 {
		t.Fatalf("after forgetting through the other: %v", got)
	}
}
