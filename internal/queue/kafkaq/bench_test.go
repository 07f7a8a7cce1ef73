package kafkaq_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/queue/queuetest"
)

// BenchmarkRoundTrip: 32 goroutines each enqueue an item, lease one and ack
// it, as internal/queue/local's benchmark of the same name does: the cost of
// one item passing through the queue. The cluster is kfake, in
// process (no disk).
func BenchmarkRoundTrip(b *testing.B) {
	q := open(b, newCluster(b))
	defer q.Close()
	queuetest.RoundTrip(b, q)
}
