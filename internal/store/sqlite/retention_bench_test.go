package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// BenchmarkWritesWhilePruning: do prune batches stall the writers? Each
// iteration is one round of two phases of a second, alternated: 8 writers
// storing runs as a synchronous execution does (create running, one frame,
// finish) alone, then the same while a backlog of 20,000 old runs of
// another account is pruned as the pruner does. Two ways of pruning: the
// first design (batches of 500, a fixed 20 ms between) and the pruner's
// (batches of 100, then a rest of 4 times the batch's time, at least
// 20 ms: internal/retention.Rest). It reports the writers' p50 and p99 and
// runs/s in each phase. docs/performance.md ("Retention") has the figures.
//
//	go test ./internal/store/sqlite -run '^$' -bench WritesWhilePruning -benchtime 3x
func BenchmarkWritesWhilePruning(b *testing.B) {
	for _, v := range []struct {
		batch int
		rest  int // the pause is rest times the batch's time (at least 20 ms)
	}{{500, 0}, {100, 4}} {
		b.Run(fmt.Sprintf("batch=%d,rest=%dx", v.batch, v.rest), func(b *testing.B) { writesWhilePruning(b, v.batch, v.rest) })
	}
}

func writesWhilePruning(b *testing.B, batch, rest int) {
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for _, id := range []string{"old", "live"} {
		if _, err := db.CreateAccount(ctx, store.Account{ID: id}); err != nil {
			b.Fatal(err)
		}
	}
	var seq atomic.Int64
	writeRun := func(account string) error {
		id := fmt.Sprintf("run-%d", seq.Add(1))
		e := store.Execution{ID: id, AccountID: account, Digest: "d", Document: benchResult, Status: store.StatusRunning, BudgetMs: 1}
		if _, _, err := db.CreateExecution(ctx, e); err != nil {
			return err
		}
		if _, err := db.AppendEvents(ctx, id, benchResult); err != nil {
			return err
		}
		return db.UpdateExecution(ctx, account, id, store.ExecutionUpdate{Status: store.StatusSuccess, Result: benchResult})
	}
	// phase runs the writers for a second, with pruning when asked, and
	// returns their latencies.
	phase := func(prune bool) []time.Duration {
		phaseCtx, stop := context.WithTimeout(ctx, time.Second)
		defer stop()
		var mu sync.Mutex
		var lat []time.Duration
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for phaseCtx.Err() == nil {
					t := time.Now()
					if err := writeRun("live"); err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					lat = append(lat, time.Since(t))
					mu.Unlock()
				}
			}()
		}
		if prune {
			for phaseCtx.Err() == nil {
				t := time.Now()
				p, err := db.PruneRuns(ctx, "old", time.Now().Add(time.Hour), batch)
				if err != nil {
					b.Fatal(err)
				}
				if !p.More {
					b.Error("the backlog ran out before the phase ended: make it larger")
					break
				}
				time.Sleep(max(20*time.Millisecond, time.Duration(rest)*time.Since(t)))
			}
		}
		wg.Wait()
		slices.Sort(lat)
		return lat
	}
	var alone, pruning []time.Duration
	for b.Loop() {
		b.StopTimer()
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < 20000; i += 16 {
					if err := writeRun("old"); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		b.StartTimer()
		alone = append(alone, phase(false)...)
		pruning = append(pruning, phase(true)...)
	}
	slices.Sort(alone)
	slices.Sort(pruning)
	pct := func(l []time.Duration, q float64) float64 {
		return float64(l[int(q*float64(len(l)-1))].Microseconds()) / 1000
	}
	rounds := float64(b.N)
	b.ReportMetric(pct(alone, 0.5), "p50-ms-alone")
	b.ReportMetric(pct(alone, 0.99), "p99-ms-alone")
	b.ReportMetric(float64(len(alone))/rounds, "runs/s-alone")
	b.ReportMetric(pct(pruning, 0.5), "p50-ms-pruning")
	b.ReportMetric(pct(pruning, 0.99), "p99-ms-pruning")
	b.ReportMetric(float64(len(pruning))/rounds, "runs/s-pruning")
}
