package local_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// BenchmarkRoundTrip: 32 goroutines each enqueue an item, lease one and ack
// it: the cost of one item passing through the local queue (three durable
// writes). The figure is in docs/performance.md.
func BenchmarkRoundTrip(b *testing.B) {
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	q := local.New(db, nil)
	defer q.Close()
	queuetest.RoundTrip(b, q)
}
