package cli

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// loadShape is how a load is applied: clients in a closed loop (each waits
// for its answer before the next call), or paced at a rate in all.
type loadShape struct {
	Clients int
	Rate    int // requests/s in all; 0: as fast as the clients go
}

// loadResult is what one run of a load measured.
type loadResult struct {
	Latencies  []time.Duration // of the calls that succeeded, unsorted
	Errors     int64
	FirstError string
	Elapsed    time.Duration
}

// runLoad calls call from s.Clients goroutines for d. n numbers the calls
// from next (shared by every run of a measurement, so ids never repeat).
func runLoad(ctx context.Context, s loadShape, d time.Duration, next *atomic.Int64, call func(ctx context.Context, client, n int) error) loadResult {
	var mu sync.Mutex
	var res loadResult
	var errs atomic.Int64
	var first atomic.Value
	start := time.Now()
	end := start.Add(d)
	// With a rate, a pacer hands out the times requests are due; latency
	// counts from that time, so a server that falls behind is charged for
	// the wait (no coordinated omission).
	var due chan time.Time
	if s.Rate > 0 {
		due = make(chan time.Time, s.Clients)
		go func() {
			defer close(due)
			interval := time.Second / time.Duration(s.Rate)
			at := time.Now()
			for at.Before(end) && ctx.Err() == nil {
				time.Sleep(time.Until(at))
				select {
				case due <- at:
				case <-ctx.Done():
					return
				}
				at = at.Add(interval)
			}
		}()
	}
	var wg sync.WaitGroup
	for cl := range s.Clients {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 4096)
			for time.Now().Before(end) && ctx.Err() == nil {
				n := int(next.Add(1))
				t0 := time.Now()
				if due != nil {
					at, ok := <-due
					if !ok {
						break
					}
					t0 = at
				}
				if err := call(ctx, cl, n); err != nil {
					errs.Add(1)
					first.CompareAndSwap(nil, err.Error())
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			res.Latencies = append(res.Latencies, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Errors = errs.Load()
	res.FirstError, _ = first.Load().(string)
	return res
}

// phaseOf sums up one measured load as a phase named name.
func phaseOf(name string, r loadResult) benchPhase {
	lat := sortedLatencies(r.Latencies)
	p := benchPhase{Name: name, Requests: int64(len(lat)), Errors: r.Errors, FirstError: r.FirstError}
	if len(lat) > 0 {
		p.PerSec = float64(len(lat)) / r.Elapsed.Seconds()
		p.P50, p.P99, p.P999 = latencyPercentile(lat, 50), latencyPercentile(lat, 99), latencyPercentile(lat, 99.9)
		p.Max = lat[len(lat)-1]
	}
	return p
}

// latencyPercentile is the p-th percentile (0-100, fractions allowed) of
// sorted latencies; 0 when there are none.
func latencyPercentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)) * p / 100)
	return sorted[min(i, len(sorted)-1)]
}

// sortedLatencies sorts in place and returns its argument.
func sortedLatencies(l []time.Duration) []time.Duration {
	slices.Sort(l)
	return l
}
