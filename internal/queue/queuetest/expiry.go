package queuetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
)

// SweptQueue is a queue that sweeps its expired items (the table queues).
type SweptQueue interface {
	queue.Queue
	queue.Sweeper
}

// ExpiryOpener opens an empty queue on clk for one test; the suite closes it.
type ExpiryOpener func(t *testing.T, clk clock.Clock) SweptQueue

// RunExpiry is the contract of Message.ExpiresAt for a queue that sweeps:
// an expired item nobody holds is deleted, a held one only once its lease
// ran out, others stay; a sweep of more than a batch deletes them all.
// setBatch sets the implementation's rows per statement and returns the
// restore.
func RunExpiry(t *testing.T, open ExpiryOpener, setBatch func(n int) (restore func())) {
	t.Run("Sweep", func(t *testing.T) {
		clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
		q := open(t, clk)
		t.Cleanup(func() { q.Close() })
		testSweep(t, q, clk)
	})
	t.Run("SweepBatches", func(t *testing.T) {
		clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
		q := open(t, clk)
		t.Cleanup(func() { q.Close() })
		defer setBatch(3)()
		for i := range 10 {
			mustEnqueue(t, q, queue.Message{Topic: "replies.gone", ID: fmt.Sprintf("r%d", i), ExpiresAt: clk.Now().Add(time.Minute)})
		}
		clk.Advance(2 * time.Minute)
		if n := sweep(t, q); n != 10 {
			t.Fatalf("a sweep in batches of 3 deleted %d of 10 expired items", n)
		}
		if left := lease(t, q, "replies.gone", "w", 100, time.Minute); len(left) != 0 {
			t.Fatalf("left after the sweep: %s", ids(left))
		}
	})
}

func testSweep(t *testing.T, q SweptQueue, clk *clock.Fake) {
	now := clk.Now()
	// A departed gateway's results topic: nobody will lease it again.
	mustEnqueue(t, q, queue.Message{Topic: "replies.gone", ID: "soon", Payload: []byte("a"), ExpiresAt: now.Add(time.Minute)})
	mustEnqueue(t, q, queue.Message{Topic: "replies.gone", ID: "later", ExpiresAt: now.Add(time.Hour)})
	mustEnqueue(t, q, queue.Message{Topic: "replies.gone", ID: "never"})
	// A live consumer's topic, holding an item that expires under its lease.
	mustEnqueue(t, q, queue.Message{Topic: "replies.live", ID: "held", ExpiresAt: now.Add(time.Minute)})
	held := lease(t, q, "replies.live", "gateway", 1, 10*time.Minute)
	if len(held) != 1 {
		t.Fatalf("leased %d of the live topic's item", len(held))
	}
	// Tasks never expire.
	mustEnqueue(t, q, queue.Message{Topic: "tasks", ID: "task"})

	if n := sweep(t, q); n != 0 {
		t.Fatalf("a sweep before any expiry deleted %d", n)
	}
	clk.Advance(2 * time.Minute)
	if n := sweep(t, q); n != 1 {
		t.Fatalf("a sweep after one unheld expiry deleted %d, want 1 (soon; held is under its lease)", n)
	}
	clk.Advance(10 * time.Minute) // the lease of held runs out
	if n := sweep(t, q); n != 1 {
		t.Fatalf("a sweep after held's lease ran out deleted %d, want 1", n)
	}
	wantKind(t, q.Ack(ctx, held[0]), fault.Conflict, "ack of a swept item")
	if n := sweep(t, q); n != 0 {
		t.Fatalf("a second sweep deleted %d", n)
	}
	if got := ids(lease(t, q, "replies.gone", "w", 10, 2*time.Hour)); got != "later,never" {
		t.Fatalf("left on the departed topic: %q, want later,never", got)
	}
	if got := ids(lease(t, q, "tasks", "w", 10, time.Minute)); got != "task" {
		t.Fatalf("left on tasks: %q", got)
	}
	clk.Advance(time.Hour) // later expires, but it is leased now: kept
	if n := sweep(t, q); n != 0 {
		t.Fatalf("a sweep deleted %d leased items", n)
	}
}

func mustEnqueue(t *testing.T, q queue.Queue, m queue.Message) {
	t.Helper()
	ok, err := q.Enqueue(ctx, m)
	must(t, err)
	if !ok {
		t.Fatalf("%s/%s not enqueued", m.Topic, m.ID)
	}
}

func sweep(t *testing.T, q queue.Sweeper) int64 {
	t.Helper()
	n, err := q.Sweep(ctx)
	must(t, err)
	return n
}
