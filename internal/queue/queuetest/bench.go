package queuetest

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
)

// RoundTrip is the round-trip benchmark every implementation reports, so
// their figures compare: 32 goroutines each enqueue an item, lease one and
// ack it; items/s is items through the queue per second.
func RoundTrip(b *testing.B, q queue.Queue) {
	ctx := context.Background()
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
