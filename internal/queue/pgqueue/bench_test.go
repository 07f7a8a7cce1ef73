package pgqueue_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
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
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			q := be.open(b)
			defer q.Close()
			queuetest.RoundTrip(b, q)
		})
	}
}
