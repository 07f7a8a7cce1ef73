package gateway

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/ratelimit"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// Through the adapter, limiters on one store decide as one process would
// (compared call by call with a MemoryShared), and two of them enforce one
// limit between them under concurrency.
func TestSharedRateLimitsOnStores(t *testing.T) {
	for name, st := range storetest.Backends(t, nil) {
		t.Run(name, func(t *testing.T) {
			t0 := time.Date(2026, 11, 23, 10, 0, 15, 0, time.UTC)
			clk := clock.NewFake(t0)
			open := func(sh ratelimit.Shared) *ratelimit.Limiter {
				lim, err := ratelimit.Open(context.Background(), ratelimit.Options{Clock: clk, Shared: sh, FlushInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { lim.Close(context.Background()) })
				return lim
			}
			ref := open(ratelimit.NewMemoryShared())
			a, b := open(sharedRateLimits{limits: st}), open(sharedRateLimits{limits: st})
			l := ratelimit.Limits{RequestsPerMinute: 7, RequestsPerHour: 20, APICallsPerMinute: 3}
			r := rand.New(rand.NewPCG(1, 2))
			for i := range 300 {
				if r.IntN(3) == 0 {
					clk.Advance(time.Duration(r.IntN(9000)) * time.Millisecond)
				}
				gw := a
				if r.IntN(2) == 0 {
					gw = b
				}
				var want, got ratelimit.Decision
				if r.IntN(3) == 0 {
					want, got = ref.AllowAPICall("acct", l), gw.AllowAPICall("acct", l)
				} else {
					want, got = ref.Allow("acct", l), gw.Allow("acct", l)
				}
				if want.Allowed != got.Allowed || want.Window != got.Window || want.Remaining != got.Remaining ||
					want.RetryAfterSeconds() != got.RetryAfterSeconds() || !want.Reset.Equal(got.Reset) {
					t.Fatalf("call %d at %v:\n memory %+v\n %s %+v", i, clk.Now(), want, name, got)
				}
			}
			var passed atomic.Int64
			var wg sync.WaitGroup
			big := ratelimit.Limits{RequestsPerMinute: -1, RequestsPerHour: 150}
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					gw := []*ratelimit.Limiter{a, b}[g%2]
					for range 40 {
						if gw.Allow("busy", big).Allowed {
							passed.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			if passed.Load() != 150 {
				t.Fatalf("%d of 320 passed a shared limit of 150", passed.Load())
			}
			rel, d := a.Acquire("acct", ratelimit.Limits{MaxConcurrentExecutions: 1})
			if _, d2 := b.Acquire("acct", ratelimit.Limits{MaxConcurrentExecutions: 1}); !d.Allowed || d2.Allowed {
				t.Fatalf("one slot across two limiters: %+v %+v", d, d2)
			}
			rel()
			if _, d2 := b.Acquire("acct", ratelimit.Limits{MaxConcurrentExecutions: 1}); !d2.Allowed {
				t.Fatal("a released slot is free")
			}
		})
	}
}

// BenchmarkSharedAllow is one request through a shared limiter: one atomic
// count in the store. "hot" is one account from every goroutine (its calls
// serialise on the account's lock), "spread" an account per goroutine.
func BenchmarkSharedAllow(b *testing.B) {
	for name, st := range storetest.Backends(b, nil) {
		lim, err := ratelimit.Open(context.Background(), ratelimit.Options{Shared: sharedRateLimits{limits: st}, FlushInterval: -1})
		if err != nil {
			b.Fatal(err)
		}
		l := ratelimit.Limits{RequestsPerMinute: 1 << 30, RequestsPerHour: 1 << 30, RequestsPerDay: 1 << 30}
		for _, mode := range []string{"hot", "spread"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				var next atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					acct := "hot"
					if mode == "spread" {
						acct = fmt.Sprint("acct-", next.Add(1))
					}
					for pb.Next() {
						if !lim.Allow(acct, l).Allowed {
							b.Error("refused")
							return
						}
					}
				})
			})
		}
		lim.Close(context.Background())
	}
}

// The configuration's default rate limits are the limiter's.
func TestConfiguredRateLimitsAreTheLimiters(t *testing.T) {
	if got := defaultRateLimits(config.Defaults().RateLimits); got != ratelimit.DefaultLimits() {
		t.Fatalf("config and ratelimit disagree on the defaults: %+v vs %+v", got, ratelimit.DefaultLimits())
	}
}
