package bridge

import (
	"testing"

	"github.com/sluicehq/sluice/internal/queue"
)

// noDepth is a queue that cannot count (as NATS and Kafka).
type noDepth struct{ queue.Queue }

// The tasks waiting on the queue are counted when the queue can count; a
// queue that cannot says so rather than 0.
func TestTaskDepth(t *testing.T) {
	q := localQueue(t)
	c := &Client{Queue: q}
	if n, ok, err := c.TaskDepth(ctx, 10); !ok || err != nil || n != 0 {
		t.Fatalf("empty: %d %v %v", n, ok, err)
	}
	for _, id := range []string{"t1", "t2"} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: c.tasks(), ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "results.elsewhere", ID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if n, ok, err := c.TaskDepth(ctx, 10); !ok || err != nil || n != 2 {
		t.Fatalf("two tasks: %d %v %v", n, ok, err)
	}
	if n, ok, _ := (&Client{Queue: noDepth{q}}).TaskDepth(ctx, 10); ok || n != 0 {
		t.Fatalf("a queue that cannot count: %d %v", n, ok)
	}
}
