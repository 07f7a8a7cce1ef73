package natsq_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/natsq"
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
	var n atomic.Int64
	payload := []byte(`{"run_id":"r","task_id":"t","agent_name":"a","input_data":{"x":1}}`)
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
}
