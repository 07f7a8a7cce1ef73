package cache_test

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/op"
)

var _ op.Cache = (*cache.Cache)(nil)

func newCache(maxEntries, perAccount int) (*cache.Cache, *clock.Fake) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return cache.New(cache.Config{MaxEntries: maxEntries, MaxPerAccount: perAccount, Clock: clk}), clk
}

func TestTTL(t *testing.T) {
	c, clk := newCache(0, 0)
	c.Put("a", "k", "", "v", time.Minute)
	if v, ok := c.Get("a", "k"); !ok || v != "v" {
		t.Fatalf("fresh entry: got %v %v", v, ok)
	}
	clk.Advance(59 * time.Second)
	if _, ok := c.Get("a", "k"); !ok {
		t.Fatal("entry expired early")
	}
	clk.Advance(time.Second)
	if _, ok := c.Get("a", "k"); ok {
		t.Fatal("entry outlived its TTL")
	}
	if c.Len() != 0 {
		t.Fatal("expired entry kept after Get")
	}
	c.Put("a", "zero", "", "v", 0)
	if _, ok := c.Get("a", "zero"); ok {
		t.Fatal("ttl 0 must not cache")
	}
}

func TestAccountsAreIsolated(t *testing.T) {
	c, _ := newCache(0, 0)
	c.Put("a", "k", "http://h:80/x", "for a", time.Minute)
	if _, ok := c.Get("b", "k"); ok {
		t.Fatal("account b sees account a's entry")
	}
	c.Put("b", "k", "http://h:80/x", "for b", time.Minute)
	c.InvalidateScope("b", "http://h:80/")
	if v, ok := c.Get("a", "k"); !ok || v != "for a" {
		t.Fatal("invalidating b dropped a's entry")
	}
	if _, ok := c.Get("b", "k"); ok {
		t.Fatal("b's entry survived its invalidation")
	}
	c.Invalidate("a")
	if _, ok := c.Get("a", "k"); ok || c.Len() != 0 {
		t.Fatal("Invalidate(account) must drop everything of the account")
	}
}

func TestInvalidateScope(t *testing.T) {
	c, _ := newCache(0, 0)
	scopes := map[string]string{
		"users":    "http://h:80/users",
		"user1":    "http://h:80/users/1",
		"orders":   "http://h:80/orders",
		"otherHst": "http://g:80/users",
	}
	for k, s := range scopes {
		c.Put("a", k, s, k, time.Minute)
	}
	c.InvalidateScope("a", "http://h:80/users")
	for k, want := range map[string]bool{"users": false, "user1": false, "orders": true, "otherHst": true} {
		if _, ok := c.Get("a", k); ok != want {
			t.Errorf("%s present=%v, want %v", k, ok, want)
		}
	}
}

func TestLRUBound(t *testing.T) {
	c, _ := newCache(3, 3)
	for i := range 3 {
		c.Put("a", fmt.Sprint(i), "", i, time.Hour)
	}
	c.Get("a", "0") // 0 is now the most recent; 1 is the oldest
	c.Put("a", "3", "", 3, time.Hour)
	if c.Len() != 3 {
		t.Fatalf("Len %d, want 3", c.Len())
	}
	if _, ok := c.Get("a", "1"); ok {
		t.Fatal("least recently used entry was not evicted")
	}
	for _, k := range []string{"0", "2", "3"} {
		if _, ok := c.Get("a", k); !ok {
			t.Errorf("entry %s evicted", k)
		}
	}
}

func TestPerAccountBound(t *testing.T) {
	c, _ := newCache(100, 2)
	c.Put("quiet", "q", "", 1, time.Hour)
	for i := range 50 {
		c.Put("busy", fmt.Sprint(i), "", i, time.Hour)
	}
	if _, ok := c.Get("quiet", "q"); !ok {
		t.Fatal("a busy account evicted another account's entry")
	}
	if c.Len() != 3 {
		t.Fatalf("Len %d, want 3 (2 busy + 1 quiet)", c.Len())
	}
	if _, ok := c.Get("busy", "49"); !ok {
		t.Fatal("newest entry missing")
	}
}

func TestOverwriteRefreshes(t *testing.T) {
	c, clk := newCache(0, 0)
	c.Put("a", "k", "", 1, time.Minute)
	clk.Advance(50 * time.Second)
	c.Put("a", "k", "", 2, time.Minute)
	clk.Advance(50 * time.Second)
	if v, ok := c.Get("a", "k"); !ok || v != 2 {
		t.Fatalf("overwrite: got %v %v", v, ok)
	}
	if c.Len() != 1 {
		t.Fatal("overwrite duplicated the entry")
	}
}

func TestConcurrentUse(t *testing.T) {
	c, _ := newCache(50, 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acct := fmt.Sprint("acct", g%3)
			for i := range 200 {
				k := fmt.Sprint(i % 30)
				c.Put(acct, k, "s/"+k, i, time.Minute)
				c.Get(acct, k)
				if i%17 == 0 {
					c.InvalidateScope(acct, "s/1")
				}
			}
		}()
	}
	wg.Wait()
	if c.Len() > 50 {
		t.Fatalf("bound exceeded: %d", c.Len())
	}
}

func TestKey(t *testing.T) {
	a := cache.Key("GET", map[string]any{"b": 1.0, "a": []any{"x", true}})
	b := cache.Key("GET", map[string]any{"a": []any{"x", true}, "b": 1.0})
	if a != b {
		t.Fatal("map order changed the key")
	}
	if len(a) != 64 {
		t.Fatalf("expected hex SHA-256, got %q", a)
	}
	distinct := []string{
		cache.Key("GET", "http://h/x"),
		cache.Key("GET", "http://h/y"),
		cache.Key("POST", "http://h/x"),
		cache.Key("GET", "http://h/", "x"), // part boundaries matter
		cache.Key(),
		cache.Key(math.NaN()), // not JSON: falls back, no panic
	}
	seen := map[string]bool{}
	for _, k := range distinct {
		if seen[k] {
			t.Fatalf("collision among distinct inputs: %s", k)
		}
		seen[k] = true
	}
	if cache.Key("<&>") == cache.Key("\\u003c&>") {
		t.Fatal("escaping collision")
	}
}
