package natsq_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/queue/natsq"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
)

// BenchmarkRoundTrip: 32 goroutines each enqueue an item, lease one and ack
// it, as internal/queue/local's benchmark of the same name does: the cost of
// one item passing through the queue. The server is embedded
// (loopback, file store in a temporary directory).
func BenchmarkRoundTrip(b *testing.B) {
	ns := startServer(b, true)
	q, err := natsq.Open(ctx, natsq.Options{URL: ns.ClientURL()})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	queuetest.RoundTrip(b, q)
}
