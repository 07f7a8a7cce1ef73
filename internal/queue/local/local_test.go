package local_test

import (
	"context"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

var ctx = context.Background()

func openDB(t *testing.T, dir string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestContract(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) queue.Queue {
		db := openDB(t, t.TempDir())
		t.Cleanup(func() { db.Close() })
		return local.New(db, nil)
	})
}

// With a fake clock a lease runs out without sleeping.
func TestLeaseExpiryOnFakeClock(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	clk := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	q := local.New(db, clk)
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "a"}); err != nil {
		t.Fatal(err)
	}
	first, err := q.Lease(ctx, "t", "w1", 1, time.Minute)
	if err != nil || len(first) != 1 {
		t.Fatalf("lease: %v %v", first, err)
	}
	clk.Advance(59 * time.Second)
	if got, _ := q.Lease(ctx, "t", "w2", 1, time.Minute); len(got) != 0 {
		t.Fatalf("taken before the lease ran out: %+v", got)
	}
	clk.Advance(2 * time.Second)
	second, err := q.Lease(ctx, "t", "w2", 1, time.Minute)
	if err != nil || len(second) != 1 || second[0].Attempts != 2 {
		t.Fatalf("after expiry: %+v %v", second, err)
	}
	if err := q.Ack(ctx, first[0]); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("old holder's ack: %v", err)
	}
	// A holder whose lease ran out but was not taken may still ack.
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "b"}); err != nil {
		t.Fatal(err)
	}
	b, _ := q.Lease(ctx, "t", "w3", 1, time.Second)
	clk.Advance(time.Hour)
	if err := q.Ack(ctx, b[0]); err != nil {
		t.Fatalf("late ack of an untaken item: %v", err)
	}
}

// Items survive a restart, and a dead process's leases run out so its work
// is delivered again.
func TestItemsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	q := local.New(db, nil)
	for _, id := range []string{"a", "b"} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: id, Payload: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	held, err := q.Lease(ctx, "t", "dies", 1, 50*time.Millisecond)
	if err != nil || len(held) != 1 {
		t.Fatal(held, err)
	}
	q.Close()
	db.Close()

	db = openDB(t, dir)
	defer db.Close()
	q = local.New(db, nil)
	defer q.Close()
	got := map[string]bool{}
	deadline, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for len(got) < 2 {
		items, err := q.Lease(ctx, "t", "next", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			got[it.ID] = true
			if err := q.Ack(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		if len(got) < 2 {
			if err := q.Wait(deadline, "t"); err != nil {
				t.Fatalf("items after restart: %v (got %v)", err, got)
			}
		}
	}
}

// A restarted process releases the leases of the one that died at once.
func TestReleaseOthers(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	q := local.New(db, nil)
	for _, id := range []string{"a", "b", "c"} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	dead, err := q.Lease(ctx, "t", "old-process", 2, time.Hour)
	if err != nil || len(dead) != 2 {
		t.Fatalf("lease: %v %d", err, len(dead))
	}
	mine, _ := q.Lease(ctx, "t", "new-process", 1, time.Hour)
	n, err := q.ReleaseOthers(ctx, "new-process")
	if err != nil || n != 2 {
		t.Fatalf("released %d (%v), want 2", n, err)
	}
	again, _ := q.Lease(ctx, "t", "new-process", 10, time.Hour)
	if len(again) != 2 || len(mine) != 1 {
		t.Fatalf("after release: %d visible, want the 2 of the dead owner", len(again))
	}
	if err := q.Ack(ctx, dead[0]); err == nil {
		t.Fatal("the dead owner's lease still acks")
	}
}

// Expired items nobody holds are swept (queue.Message.ExpiresAt).
func TestExpiry(t *testing.T) {
	queuetest.RunExpiry(t, func(t *testing.T, clk clock.Clock) queuetest.SweptQueue {
		db := openDB(t, t.TempDir())
		t.Cleanup(func() { db.Close() })
		return local.New(db, clk)
	}, local.SetSweepBatch)
}
