package pgqueue_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// BenchmarkRoundTrip compares the local queue (SQLite) and the PostgreSQL
// queue in one run: 32 goroutines each enqueue an item, lease one and ack it
// (three durable writes per item). The figures are in docs/storage.md
// ("PostgreSQL").
func BenchmarkRoundTrip(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) queue.Queue
	}{
		{"local", func(b *testing.B) queue.Queue {
			db, err := sqlite.Open(ctx, sqlite.Options{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return local.New(db, nil)
		}},
		{"postgres", func(b *testing.B) queue.Queue {
			return pgqueue.New(openDB(b, pgtest.NewDatabase(b)), pgqueue.Options{})
		}},
	}
	payload := []byte(`{"run_id":"r","task_id":"t","agent_name":"a","input_data":{"x":1}}`)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			q := be.open(b)
			defer q.Close()
			var n atomic.Int64
			b.SetParallelism(32 / max(1, runtime.GOMAXPROCS(0)))
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				owner := fmt.Sprintf("w%d", n.Add(1))
				for pb.Next() {
					id := fmt.Sprintf("i%d", n.Add(1))
					if _, err := q.Enqueue(ctx, queue.Message{Topic: "tasks", ID: id, Payload: payload}); err != nil {
						b.Error(err)
						return
					}
					items, err := q.Lease(ctx, "tasks", owner, 1, time.Minute)
					if err != nil {
						b.Error(err)
						return
					}
					for _, it := range items {
						if err := q.Ack(ctx, it); err != nil {
							b.Error(err)
							return
						}
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "items/s")
		})
	}
}
