package storetest

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func testTakeRate(t *testing.T, s store.Store) {
	minute := time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC)
	hour := minute.Truncate(time.Hour)
	at := minute.Add(10 * time.Second)
	take := func(at time.Time, n, minLimit, hourLimit int64) store.RateTaken {
		t.Helper()
		r, err := s.TakeRate(ctx, store.RateTake{AccountID: "alice", At: at, N: n, Windows: []store.RateWindow{
			{Kind: "requests_per_minute", Start: at.Truncate(time.Minute), End: at.Truncate(time.Minute).Add(time.Minute), Limit: minLimit},
			{Kind: "requests_per_hour", Start: hour, End: hour.Add(time.Hour), Limit: hourLimit},
		}})
		must(t, err)
		if len(r.Counts) != 2 || !r.TAT.IsZero() {
			t.Fatalf("answer %+v", r)
		}
		return r
	}
	for i := int64(1); i <= 3; i++ {
		if r := take(at, 1, 3, 10); !r.Taken || r.Counts[0] != i || r.Counts[1] != i {
			t.Fatalf("take %d: %+v", i, r)
		}
	}
	// The minute is full: refused, and nothing is counted (the hour stays 3).
	if r := take(at, 1, 3, 10); r.Taken || r.Counts[0] != 3 || r.Counts[1] != 3 {
		t.Fatalf("over the minute: %+v", r)
	}
	// A read counts nothing.
	if r := take(at, 0, 3, 10); !r.Taken || r.Counts[0] != 3 {
		t.Fatalf("read: %+v", r)
	}
	// The next minute starts at zero; the hour goes on.
	next := at.Add(time.Minute)
	if r := take(next, 2, 3, 10); !r.Taken || r.Counts[0] != 2 || r.Counts[1] != 5 {
		t.Fatalf("next minute: %+v", r)
	}
	// Unlimited windows count without refusing.
	if r := take(next, 6, 0, -1); !r.Taken || r.Counts[0] != 8 || r.Counts[1] != 11 {
		t.Fatalf("unlimited: %+v", r)
	}
	// Another account has its own counts.
	r, err := s.TakeRate(ctx, store.RateTake{AccountID: "bob", At: at, N: 1, Windows: []store.RateWindow{
		{Kind: "requests_per_hour", Start: hour, End: hour.Add(time.Hour), Limit: 1}}})
	must(t, err)
	if !r.Taken || r.Counts[0] != 1 {
		t.Fatalf("bob: %+v", r)
	}

	// A bucket of 3 tokens, one more every 10 s.
	b := &store.RateBucket{Kind: "requests_per_minute:bucket", Interval: 10 * time.Second, Burst: 3}
	bucket := func(at time.Time) store.RateTaken {
		t.Helper()
		r, err := s.TakeRate(ctx, store.RateTake{AccountID: "carol", At: at, N: 1, Bucket: b})
		must(t, err)
		return r
	}
	for i := 1; i <= 3; i++ {
		if r := bucket(at); !r.Taken || !r.TAT.Equal(at.Add(time.Duration(i)*10*time.Second)) {
			t.Fatalf("bucket take %d: %+v", i, r)
		}
	}
	if r := bucket(at.Add(5 * time.Second)); r.Taken || !r.TAT.Equal(at.Add(30*time.Second)) {
		t.Fatalf("empty bucket: %+v", r)
	}
	if r := bucket(at.Add(10 * time.Second)); !r.Taken {
		t.Fatalf("a token after 10 s: %+v", r)
	}
	// Long after, the bucket is full again (its row was dropped).
	if r := bucket(at.Add(time.Hour)); !r.Taken || !r.TAT.Equal(at.Add(time.Hour+10*time.Second)) {
		t.Fatalf("refilled: %+v", r)
	}

	for i, bad := range []store.RateTake{
		{AccountID: "", At: at},
		{AccountID: "a"},
		{AccountID: "a", At: at, N: -1},
		{AccountID: "a", At: at, Windows: []store.RateWindow{{Kind: "", Start: hour, End: hour.Add(time.Hour)}}},
		{AccountID: "a", At: at, Windows: []store.RateWindow{{Kind: "k", Start: hour, End: hour}}},
		{AccountID: "a", At: at, Windows: []store.RateWindow{{Kind: "k", Start: hour, End: hour.Add(1)}, {Kind: "k", Start: hour, End: hour.Add(1)}}},
		{AccountID: "a", At: at, Bucket: &store.RateBucket{Kind: "b", Interval: 0, Burst: 1}},
	} {
		_, err := s.TakeRate(ctx, bad)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad take %d", i))
	}
}

// Many takes at once against one limit: exactly the limit passes.
func testTakeRateConcurrent(t *testing.T, s store.Store) {
	at := time.Date(2026, 11, 23, 12, 30, 10, 0, time.UTC)
	hour := at.Truncate(time.Hour)
	var taken atomic.Int64
	parallel(t, 300, func(i int) error {
		r, err := s.TakeRate(ctx, store.RateTake{AccountID: "alice", At: at, N: 1, Windows: []store.RateWindow{
			{Kind: "requests_per_hour", Start: hour, End: hour.Add(time.Hour), Limit: 100}}})
		if r.Taken {
			taken.Add(1)
		}
		return err
	})
	if taken.Load() != 100 {
		t.Fatalf("%d of 300 passed a limit of 100", taken.Load())
	}
}

func testSlots(t *testing.T, s store.Store) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	slot := func(id string, max int, at time.Time) (int, bool) {
		t.Helper()
		held, ok, err := s.TakeSlot(ctx, store.SlotTake{AccountID: "alice", SlotID: id, Max: max, At: at, Expires: at.Add(time.Minute)})
		must(t, err)
		return held, ok
	}
	if h, ok := slot("s1", 2, at); !ok || h != 1 {
		t.Fatalf("s1: %d %v", h, ok)
	}
	if h, ok := slot("s2", 2, at); !ok || h != 2 {
		t.Fatalf("s2: %d %v", h, ok)
	}
	if h, ok := slot("s3", 2, at); ok || h != 2 {
		t.Fatalf("s3 over the limit: %d %v", h, ok)
	}
	// Taking a held id again renews it, whatever the limit.
	if h, ok := slot("s2", 2, at); !ok || h != 2 {
		t.Fatalf("s2 again: %d %v", h, ok)
	}
	must(t, s.ReleaseSlot(ctx, "s1"))
	must(t, s.ReleaseSlot(ctx, "s1")) // twice: no error
	if h, ok := slot("s3", 2, at); !ok || h != 2 {
		t.Fatalf("s3 after a release: %d %v", h, ok)
	}
	if n, err := s.CountSlots(ctx, "alice", at); err != nil || n != 2 {
		t.Fatalf("count: %d %v", n, err)
	}
	// s2 is renewed; s3 is left to expire.
	must(t, s.RenewSlots(ctx, []string{"s2", "unknown"}, at.Add(2*time.Minute)))
	later := at.Add(90 * time.Second)
	if n, err := s.CountSlots(ctx, "alice", later); err != nil || n != 1 {
		t.Fatalf("count after s3 expired: %d %v", n, err)
	}
	if h, ok := slot("s4", 2, later); !ok || h != 2 {
		t.Fatalf("s4 in the place of the expired s3: %d %v", h, ok)
	}
	if h, ok := slot("u1", 0, later); !ok || h != 3 {
		t.Fatalf("no limit: %d %v", h, ok)
	}
	if n, err := s.CountSlots(ctx, "bob", later); err != nil || n != 0 {
		t.Fatalf("bob: %d %v", n, err)
	}
	for i, bad := range []store.SlotTake{
		{AccountID: "", SlotID: "x", At: at, Expires: at.Add(time.Second)},
		{AccountID: "a", SlotID: "", At: at, Expires: at.Add(time.Second)},
		{AccountID: "a", SlotID: "x", At: at, Expires: at},
	} {
		_, _, err := s.TakeSlot(ctx, bad)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad slot %d", i))
	}
	wantKind(t, s.RenewSlots(ctx, []string{"bad id"}, at), fault.Invalid, "bad renewal")
	wantKind(t, s.ReleaseSlot(ctx, ""), fault.Invalid, "bad release")

	// At once: exactly the limit is taken.
	var taken atomic.Int64
	parallel(t, 50, func(i int) error {
		_, ok, err := s.TakeSlot(ctx, store.SlotTake{AccountID: "dave", SlotID: fmt.Sprintf("d%d", i), Max: 5, At: at, Expires: at.Add(time.Minute)})
		if ok {
			taken.Add(1)
		}
		return err
	})
	if taken.Load() != 5 {
		t.Fatalf("%d of 50 slots taken under a limit of 5", taken.Load())
	}
}

func testValues(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	put := func(v store.Value) {
		t.Helper()
		must(t, s.PutValue(ctx, v))
	}
	get := func(area, acct, scope, key string) (string, bool) {
		t.Helper()
		v, ok, err := s.GetValue(ctx, area, acct, scope, key)
		must(t, err)
		return string(v), ok
	}
	future := time.Now().Add(time.Hour)
	put(store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "sess 1", Key: "k", Value: json.RawMessage(`{"a":1}`), ExpiresAt: future})
	put(store.Value{Area: a2e.StorageFile, AccountID: "alice", Key: "reports/2026", Value: json.RawMessage(`[1,2]`)})
	if v, ok := get(a2e.StorageSession, "alice", "sess 1", "k"); !ok || v != `{"a":1}` {
		t.Fatalf("session value: %q %v", v, ok)
	}
	if v, ok := get(a2e.StorageFile, "alice", "", "reports/2026"); !ok || v != `[1,2]` {
		t.Fatalf("file value: %q %v", v, ok)
	}
	// Scopes, areas and accounts are apart.
	for _, miss := range [][4]string{
		{a2e.StorageSession, "alice", "sess 2", "k"},
		{a2e.StorageSession, "bob", "sess 1", "k"},
		{a2e.StorageFile, "alice", "", "k"},
		{a2e.StorageFile, "bob", "", "reports/2026"},
	} {
		if _, ok := get(miss[0], miss[1], miss[2], miss[3]); ok {
			t.Fatalf("%v found", miss)
		}
	}
	// Replace, and expire.
	put(store.Value{Area: a2e.StorageFile, AccountID: "alice", Key: "reports/2026", Value: json.RawMessage(`"new"`)})
	if v, _ := get(a2e.StorageFile, "alice", "", "reports/2026"); v != `"new"` {
		t.Fatalf("replaced: %q", v)
	}
	put(store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "old", Key: "k", Value: json.RawMessage(`1`), ExpiresAt: time.Now().Add(-time.Second)})
	if _, ok := get(a2e.StorageSession, "alice", "old", "k"); ok {
		t.Fatal("an expired value is found")
	}
	n, err := s.PruneValues(ctx, time.Now())
	must(t, err)
	if n != 1 {
		t.Fatalf("pruned %d, want 1", n)
	}
	if _, ok := get(a2e.StorageSession, "alice", "sess 1", "k"); !ok {
		t.Fatal("a live value was pruned")
	}
	wantKind(t, s.PutValue(ctx, store.Value{Area: a2e.StorageFile, AccountID: "nobody", Key: "k", Value: json.RawMessage(`1`)}), fault.NotFound, "unknown account")
	for i, bad := range []store.Value{
		{Area: a2e.StorageLocal, AccountID: "alice", Key: "k", Value: json.RawMessage(`1`)},
		{Area: a2e.StorageSession, AccountID: "alice", Key: "k", Value: json.RawMessage(`1`)},
		{Area: a2e.StorageFile, AccountID: "alice", Scope: "s", Key: "k", Value: json.RawMessage(`1`)},
		{Area: a2e.StorageFile, AccountID: "alice", Key: "../k", Value: json.RawMessage(`1`)},
		{Area: a2e.StorageFile, AccountID: "alice", Key: "k", Value: json.RawMessage(`{`)},
		{Area: a2e.StorageFile, AccountID: "", Key: "k", Value: json.RawMessage(`1`)},
		{Area: a2e.StorageSession, AccountID: "alice", Scope: "a\x00b", Key: "k", Value: json.RawMessage(`1`)},
	} {
		wantKind(t, s.PutValue(ctx, bad), fault.Invalid, fmt.Sprintf("bad value %d", i))
	}
	_, _, err = s.GetValue(ctx, a2e.StorageFile, "alice", "", "/abs")
	wantKind(t, err, fault.Invalid, "bad key on get")
}

// The bound of a scope holds under concurrent new keys, and expired keys do
// not count.
func testValuesBound(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	one := json.RawMessage(`1`)
	past := time.Now().Add(-time.Second)
	parallel(t, store.MaxValuesPerScope-10, func(i int) error {
		return s.PutValue(ctx, store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "s", Key: fmt.Sprintf("k%d", i), Value: one})
	})
	for i := range 5 {
		must(t, s.PutValue(ctx, store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "s", Key: fmt.Sprintf("old%d", i), Value: one, ExpiresAt: past}))
	}
	var full atomic.Int64
	parallel(t, 40, func(i int) error {
		err := s.PutValue(ctx, store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "s", Key: fmt.Sprintf("new%d", i), Value: one})
		if fault.KindOf(err) == fault.Invalid {
			full.Add(1)
			return nil
		}
		return err
	})
	if full.Load() != 30 {
		t.Fatalf("%d of 40 new keys refused, want 30 (10 places left)", full.Load())
	}
	// Another scope is not full; a key already there may be replaced.
	must(t, s.PutValue(ctx, store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "t", Key: "k", Value: one}))
	must(t, s.PutValue(ctx, store.Value{Area: a2e.StorageSession, AccountID: "alice", Scope: "s", Key: "k1", Value: json.RawMessage(`2`)}))
}

func testSettings(t *testing.T, s store.Store) {
	got, err := s.ClaimSetting(ctx, "vault.fingerprint", []byte("one"))
	must(t, err)
	if string(got) != "one" {
		t.Fatalf("first claim: %q", got)
	}
	got, err = s.ClaimSetting(ctx, "vault.fingerprint", []byte("two"))
	must(t, err)
	if string(got) != "one" {
		t.Fatalf("second claim: %q, want the first value", got)
	}
	wantKind(t, s.SwapSetting(ctx, "vault.fingerprint", []byte("two"), []byte("three")), fault.Conflict, "swap from a stale value")
	must(t, s.SwapSetting(ctx, "vault.fingerprint", []byte("one"), []byte("three")))
	if got, _ := s.ClaimSetting(ctx, "vault.fingerprint", []byte("x")); string(got) != "three" {
		t.Fatalf("after the swap: %q", got)
	}
	wantKind(t, s.SwapSetting(ctx, "unset", []byte("a"), []byte("b")), fault.NotFound, "swap of an unset name")
	if v, ok, err := s.GetSetting(ctx, "vault.fingerprint"); err != nil || !ok || string(v) != "three" {
		t.Fatalf("get: %q %v %v", v, ok, err)
	}
	if v, ok, err := s.GetSetting(ctx, "unset"); err != nil || ok || v != nil {
		t.Fatalf("get of an unset name: %q %v %v", v, ok, err)
	}
	_, err = s.ClaimSetting(ctx, "bad name", []byte("x"))
	wantKind(t, err, fault.Invalid, "bad name")
	_, err = s.ClaimSetting(ctx, "empty", nil)
	wantKind(t, err, fault.Invalid, "empty value")
	// Claims at once agree on one value.
	var first atomic.Pointer[string]
	parallel(t, 32, func(i int) error {
		got, err := s.ClaimSetting(ctx, "race", []byte(fmt.Sprint(i)))
		if err != nil {
			return err
		}
		v := string(got)
		if !first.CompareAndSwap(nil, &v) && *first.Load() != v {
			return fmt.Errorf("claims disagree: %q and %q", *first.Load(), v)
		}
		return nil
	})
}
