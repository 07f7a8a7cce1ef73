package ratelimit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/ratelimit"
)

// gateways opens n limiters sharing one store, as n gateways would.
func gateways(t *testing.T, clk clock.Clock, shared ratelimit.Shared, n int, opts ratelimit.Options) []*ratelimit.Limiter {
	t.Helper()
	out := make([]*ratelimit.Limiter, n)
	for i := range out {
		o := opts
		o.Shared = shared
		out[i] = open(t, clk, o)
	}
	return out
}

// The shared mode decides exactly as one process would: the same sequence of
// calls, on one limiter of each mode, gets the same answers.
func TestSharedDecidesAsOneProcess(t *testing.T) {
	clk := clock.NewFake(t0)
	local := open(t, clk, ratelimit.Options{})
	shared := gateways(t, clk, ratelimit.NewMemoryShared(), 1, ratelimit.Options{})[0]
	r := rand.New(rand.NewPCG(7, 7))
	l := ratelimit.Limits{RequestsPerMinute: 20, RequestsPerHour: 50, APICallsPerMinute: 7, APICallsPerHour: 30}
	for i := range 3000 {
		if r.IntN(4) == 0 {
			clk.Advance(time.Duration(r.IntN(5000)) * time.Millisecond)
		}
		var a, b ratelimit.Decision
		if r.IntN(3) == 0 {
			a, b = local.AllowAPICall("acct", l), shared.AllowAPICall("acct", l)
		} else {
			a, b = local.Allow("acct", l), shared.Allow("acct", l)
		}
		if a.Allowed != b.Allowed || a.Window != b.Window || a.Limit != b.Limit || a.Remaining != b.Remaining ||
			!a.Reset.Equal(b.Reset) || a.RetryAfterSeconds() != b.RetryAfterSeconds() {
			t.Fatalf("call %d at %v:\n local  %+v\n shared %+v", i, clk.Now(), a, b)
		}
	}
	ls, ss := local.Status("acct", l), shared.Status("acct", l)
	for i := range ls.Windows {
		a, b := ls.Windows[i], ss.Windows[i]
		if a.Window != b.Window || a.Limit != b.Limit || a.Used != b.Used || a.Remaining != b.Remaining || !a.Reset.Equal(b.Reset) {
			t.Fatalf("status window %d: local %+v shared %+v", i, ls.Windows[i], ss.Windows[i])
		}
	}
}

// Two gateways enforce one limit per account: 60 a minute in all, however the
// calls are spread, and concurrently.
func TestSharedOneLimitAcrossGateways(t *testing.T) {
	clk := clock.NewFake(t0.Truncate(time.Minute).Add(59 * time.Second))
	gws := gateways(t, clk, ratelimit.NewMemoryShared(), 2, ratelimit.Options{})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if gws[g%2].Allow("acct", ratelimit.Limits{}).Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != 60 {
		t.Fatalf("%d requests passed a shared limit of 60", allowed.Load())
	}
	// The minute's bucket is shared too: after the burst, one a second, also
	// in the next fixed window.
	clk.Advance(time.Second)
	if !gws[0].Allow("acct", ratelimit.Limits{}).Allowed {
		t.Fatal("one token refilled")
	}
	if d := gws[1].Allow("acct", ratelimit.Limits{}); d.Allowed || d.RetryAfter != time.Second {
		t.Fatalf("the other gateway sees the same bucket: %+v", d)
	}
	if st := gws[1].Status("acct", ratelimit.Limits{}); st.Windows[0].Used != 1 || st.Windows[1].Used != 61 {
		t.Fatalf("status through the other gateway: %+v", st.Windows[:3])
	}
}

// Concurrent executions are one limit across gateways; a gateway that dies
// without releasing leaves its slots to expire, and live slots are renewed.
func TestSharedSlots(t *testing.T) {
	clk := clock.NewFake(t0)
	shared := ratelimit.NewMemoryShared()
	gws := gateways(t, clk, shared, 2, ratelimit.Options{SlotTTL: 30 * time.Second})
	l := ratelimit.Limits{MaxConcurrentExecutions: 3}
	r1, d1 := gws[0].Acquire("acct", l)
	_, d2 := gws[1].Acquire("acct", l)
	_, d3 := gws[1].Acquire("acct", l)
	if !d1.Allowed || !d2.Allowed || !d3.Allowed || d3.Remaining != 0 {
		t.Fatalf("%+v %+v %+v", d1, d2, d3)
	}
	if _, d := gws[0].Acquire("acct", l); d.Allowed || d.Message() != "Rate limit exceeded: 3 concurrent executions" {
		t.Fatalf("a fourth through the other gateway: %+v", d)
	}
	if st := gws[0].Status("acct", l); st.Running != 3 {
		t.Fatalf("running %d", st.Running)
	}
	r1()
	r1()
	if _, d := gws[1].Acquire("acct", l); !d.Allowed {
		t.Fatal("a slot released on one gateway is free on the other")
	}
	// Gateway 1 "dies" holding 3 slots: they expire after the TTL.
	if _, d := gws[0].Acquire("acct", l); d.Allowed {
		t.Fatal("all slots are held")
	}
	clk.Advance(31 * time.Second)
	if _, d := gws[0].Acquire("acct", l); !d.Allowed {
		t.Fatal("slots of a gateway that stopped renewing expire")
	}
	// An unlimited account is counted by its own gateway only.
	free := ratelimit.Limits{MaxConcurrentExecutions: -1}
	rel, d := gws[0].Acquire("free", free)
	if !d.Allowed || gws[0].Status("free", free).Running != 1 {
		t.Fatalf("unlimited: %+v", d)
	}
	rel()
}

// A slot held by a live gateway is renewed, so it outlives the TTL.
func TestSharedSlotsRenewed(t *testing.T) {
	shared := ratelimit.NewMemoryShared()
	lim := gateways(t, clock.Real{}, shared, 1, ratelimit.Options{SlotTTL: 300 * time.Millisecond})[0]
	release, d := lim.Acquire("acct", ratelimit.Limits{MaxConcurrentExecutions: 1})
	if !d.Allowed {
		t.Fatal(d)
	}
	defer release()
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if n, _ := shared.CountSlots(context.Background(), "acct", time.Now()); n != 1 {
			t.Fatal("a live slot expired")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// When the store does not answer, each gateway limits alone (and says so),
// and goes back to the store when it answers again.
func TestSharedFallsBackWhenTheStoreIsAway(t *testing.T) {
	clk := clock.NewFake(t0)
	shared := ratelimit.NewMemoryShared()
	var away atomic.Bool
	shared.Fail = func() error {
		if away.Load() {
			return errors.New("connection refused")
		}
		return nil
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	gws := gateways(t, clk, shared, 2, ratelimit.Options{Logger: log})
	l := ratelimit.Limits{RequestsPerMinute: 10}
	spend(t, gws[0], "acct", l, 6)
	away.Store(true)
	// Alone, each gateway allows the whole limit.
	spend(t, gws[0], "acct", l, 10)
	spend(t, gws[1], "acct", l, 10)
	if d := gws[1].Allow("acct", l); d.Allowed {
		t.Fatal("the local limit still holds")
	}
	if _, d := gws[0].Acquire("acct", ratelimit.Limits{MaxConcurrentExecutions: 1}); !d.Allowed {
		t.Fatal("slots fall back too")
	}
	mu.Lock()
	if !bytes.Contains(logs.Bytes(), []byte("limits alone")) {
		t.Fatalf("log: %s", logs.String())
	}
	mu.Unlock()
	away.Store(false)
	// Back on the store: 6 were counted there, 4 remain.
	spend(t, gws[1], "acct", l, 4)
	if gws[0].Allow("acct", l).Allowed {
		t.Fatal("the store's count is enforced again")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// countingShared counts the store's Count calls.
type countingShared struct {
	*ratelimit.MemoryShared
	counts atomic.Int64
}

func (c *countingShared) Count(ctx context.Context, sc ratelimit.SharedCount) (ratelimit.SharedCounted, error) {
	c.counts.Add(1)
	return c.MemoryShared.Count(ctx, sc)
}

// A class of calls without any limit costs no round trip to the store: each
// gateway counts them itself, and its Status says what it counted, as one
// process alone would; a class with a limit still goes to the store.
func TestSharedSkipsTheStoreWithoutALimit(t *testing.T) {
	clk := clock.NewFake(t0)
	store := &countingShared{MemoryShared: ratelimit.NewMemoryShared()}
	shared := gateways(t, clk, store, 1, ratelimit.Options{})[0]
	local := open(t, clk, ratelimit.Options{})
	free := ratelimit.Limits{RequestsPerMinute: -1, RequestsPerHour: -1, RequestsPerDay: -1, APICallsPerMinute: -1, APICallsPerHour: -1}
	for range 50 {
		for _, lim := range []*ratelimit.Limiter{shared, local} {
			if d := lim.Allow("free", free); !d.Allowed || d.Limit != 0 {
				t.Fatalf("an unlimited request: %+v", d)
			}
			if d := lim.AllowAPICall("free", free); !d.Allowed {
				t.Fatalf("an unlimited API call: %+v", d)
			}
		}
	}
	if n := store.counts.Load(); n != 0 {
		t.Fatalf("%d round trips to the store for an account without limits", n)
	}
	ss, ls := shared.Status("free", free), local.Status("free", free)
	for i := range ls.Windows {
		if a, b := ls.Windows[i], ss.Windows[i]; a != b {
			t.Fatalf("status window %d: local %+v shared %+v", i, a, b)
		}
	}
	if ss.Windows[0].Used != 50 {
		t.Fatalf("status: %+v", ss.Windows[0])
	}
	// Requests limited, API calls not: only the requests reach the store.
	mixed := ratelimit.Limits{RequestsPerMinute: 100, RequestsPerHour: -1, RequestsPerDay: -1, APICallsPerMinute: -1, APICallsPerHour: -1}
	shared.Allow("mixed", mixed)
	shared.AllowAPICall("mixed", mixed)
	if n := store.counts.Load(); n != 1 {
		t.Fatalf("%d round trips for one limited request and one unlimited API call, want 1", n)
	}
}
