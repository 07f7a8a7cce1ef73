package ratelimit_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/ratelimit"
)

// high never refuses, so the benchmarks measure the allow path.
var high = ratelimit.Limits{RequestsPerMinute: 1 << 30, RequestsPerHour: 1 << 30, RequestsPerDay: 1 << 30}

func benchLimiter(b *testing.B) *ratelimit.Limiter {
	lim, err := ratelimit.Open(context.Background(), ratelimit.Options{Clock: clock.Real{}, FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = lim.Close(context.Background()) })
	return lim
}

// BenchmarkAllow is the per-request cost of Allow on the real clock: one
// account from one goroutine, one account from all, and 10,000 accounts from
// all (the goal is well under 1 µs).
func BenchmarkAllow(b *testing.B) {
	b.Run("one-account-serial", func(b *testing.B) {
		lim := benchLimiter(b)
		b.ReportAllocs()
		for b.Loop() {
			if !lim.Allow("acct", high).Allowed {
				b.Fatal("refused")
			}
		}
	})
	b.Run("one-account-parallel", func(b *testing.B) {
		lim := benchLimiter(b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !lim.Allow("acct", high).Allowed {
					b.Error("refused")
					return
				}
			}
		})
	})
	b.Run("10k-accounts-parallel", func(b *testing.B) {
		lim := benchLimiter(b)
		accounts := make([]string, 10000)
		for i := range accounts {
			accounts[i] = "acct-" + strconv.Itoa(i)
			lim.Allow(accounts[i], high)
		}
		var seed atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := int(seed.Add(7919))
			for pb.Next() {
				i++
				if !lim.Allow(accounts[i%len(accounts)], high).Allowed {
					b.Error("refused")
					return
				}
			}
		})
	})
}

// BenchmarkAcquireRelease is the cost of taking and giving back an execution
// slot.
func BenchmarkAcquireRelease(b *testing.B) {
	lim := benchLimiter(b)
	b.ReportAllocs()
	for b.Loop() {
		release, d := lim.Acquire("acct", ratelimit.Limits{})
		if !d.Allowed {
			b.Fatal("refused")
		}
		release()
	}
}
