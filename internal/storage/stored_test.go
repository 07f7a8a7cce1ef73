package storage_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

var _ op.Storage = (*storage.Stored)(nil)

// storesOn opens the stores Stored runs on (PostgreSQL when
// SLUICE_TEST_POSTGRES is set), each with accounts a and b, on clk.
func storesOn(t *testing.T, clk clock.Clock) map[string]store.Store {
	t.Helper()
	out := storetest.Backends(t, clk)
	for _, s := range out {
		for _, id := range []string{"a", "b"} {
			if _, err := s.CreateAccount(ctx, store.Account{ID: id, Name: id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// Two Stored on one store are two gateways: what one puts, the other reads,
// scoped by account, session and storage as Memory and Files scope them.
func TestStoredSharedBetweenGateways(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for name, st := range storesOn(t, clk) {
		t.Run(name, func(t *testing.T) {
			one := &storage.Stored{Values: st, Clock: clk}
			two := &storage.Stored{Values: st, Clock: clk, SessionTTL: time.Hour}
			must(t, one.Put(ctx, session("a", "s1"), "k", map[string]any{"n": 1.0}))
			must(t, one.Put(ctx, file("a"), "reports/2026", []any{"x", 2.0}))
			cases := []struct {
				area op.Area
				key  string
				want string
			}{
				{session("a", "s1"), "k", "map[n:1]"},
				{session("a", "s2"), "k", ""}, // other session
				{session("b", "s1"), "k", ""}, // other account
				{file("a"), "k", ""},          // other storage
				{file("a"), "reports/2026", "[x 2]"},
				{file("b"), "reports/2026", ""},
			}
			for _, c := range cases {
				v, ok, err := two.Get(ctx, c.area, c.key)
				must(t, err)
				if got := fmtValue(v, ok); got != c.want {
					t.Errorf("%+v %s: %q, want %q", c.area, c.key, got, c.want)
				}
			}
			// A key and its "sub-folder" are both names here.
			must(t, two.Put(ctx, file("a"), "reports", "top"))
			if v, ok, _ := one.Get(ctx, file("a"), "reports"); !ok || v != "top" {
				t.Fatalf("reports: %v %v", v, ok)
			}
			// Session values expire an hour after they were last written;
			// files do not.
			clk.Advance(59 * time.Minute)
			must(t, one.Put(ctx, session("a", "s1"), "fresh", true))
			clk.Advance(time.Minute)
			if _, ok, _ := two.Get(ctx, session("a", "s1"), "k"); ok {
				t.Fatal("session value outlived its hour")
			}
			if _, ok, _ := two.Get(ctx, session("a", "s1"), "fresh"); !ok {
				t.Fatal("a value written later expired with the old one")
			}
			if _, ok, _ := two.Get(ctx, file("a"), "reports/2026"); !ok {
				t.Fatal("a file value expired")
			}
		})
	}
}

func TestStoredRefusals(t *testing.T) {
	st := storesOn(t, nil)["sqlite"]
	s := &storage.Stored{Values: st}
	for _, c := range []struct {
		area op.Area
		key  string
		kind fault.Kind
	}{
		{file("a"), "../x", fault.Invalid},
		{file("a"), "/abs", fault.Invalid},
		{file("a/b"), "k", fault.Internal},
		{session("a", ""), "k", fault.Internal},
		{local("a"), "k", fault.Internal},
		{file("nobody"), "k", fault.NotFound},
	} {
		err := s.Put(ctx, c.area, c.key, 1)
		if fault.KindOf(err) != c.kind {
			t.Errorf("%+v %q: %v, want %v", c.area, c.key, err, c.kind)
		}
	}
	if err := s.Put(ctx, file("a"), "k", func() {}); fault.KindOf(err) != fault.Invalid {
		t.Errorf("a value that is not JSON: %v", err)
	}
	if _, ok, err := s.Get(ctx, file("a"), "missing"); ok || err != nil {
		t.Errorf("missing: %v %v", ok, err)
	}
}

func fmtValue(v any, ok bool) string {
	if !ok {
		return ""
	}
	return fmt.Sprint(v)
}
