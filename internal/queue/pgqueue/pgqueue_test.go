package pgqueue_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

var ctx = context.Background()

func openDB(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// The very same contract as the local queue, each case on its own database.
func TestContract(t *testing.T) {
	pgtest.AdminDSN(t)
	queuetest.Run(t, func(t *testing.T) queue.Queue {
		return pgqueue.New(openDB(t, pgtest.NewDatabase(t)), pgqueue.Options{})
	})
}

// listening waits until q's listener is up.
func listening(t *testing.T, q *pgqueue.Queue) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !q.Listening() {
		if time.Now().After(deadline) {
			t.Fatal("the queue does not listen")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitWoken runs q.Wait on an empty topic while enqueue runs elsewhere and
// fails unless the wait ends within 30 s: with Poll and MaxWait set to an
// hour only a notification can end it. (The bound is generous; nothing here
// measures how fast.)
func waitWoken(t *testing.T, q *pgqueue.Queue, topic string, enqueue func()) {
	t.Helper()
	woke := make(chan error, 1)
	go func() {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		woke <- q.Wait(c, topic)
	}()
	time.Sleep(50 * time.Millisecond) // let the waiter register; an early enqueue is fine too
	enqueue()
	if err := <-woke; err != nil {
		t.Fatalf("the waiter was not woken: %v", err)
	}
}

// Two processes (here: two stores and queues on one database): an enqueue
// in one wakes a waiter in the other through NOTIFY, and each item is leased
// by one of them only.
func TestWakeUpAcrossProcesses(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := pgqueue.New(openDB(t, dsn), pgqueue.Options{Poll: time.Hour, MaxWait: time.Hour})
	defer a.Close()
	b := pgqueue.New(openDB(t, dsn), pgqueue.Options{Poll: time.Hour, MaxWait: time.Hour})
	defer b.Close()
	listening(t, a)
	listening(t, b)
	waitWoken(t, b, "jobs", func() {
		if _, err := a.Enqueue(ctx, queue.Message{Topic: "jobs", ID: "j1"}); err != nil {
			t.Error(err)
		}
	})
	got, err := b.Lease(ctx, "jobs", "worker-b", 10, time.Minute)
	if err != nil || len(got) != 1 {
		t.Fatalf("lease in b: %v %v", got, err)
	}
	if again, _ := a.Lease(ctx, "jobs", "worker-a", 10, time.Minute); len(again) != 0 {
		t.Fatalf("a leased b's item: %+v", again)
	}
	// A nack in one process wakes the other too.
	waitWoken(t, a, "jobs", func() {
		if err := b.Nack(ctx, got[0], 0); err != nil {
			t.Error(err)
		}
	})
	if again, _ := a.Lease(ctx, "jobs", "worker-a", 10, time.Minute); len(again) != 1 || again[0].Attempts != 2 {
		t.Fatalf("after the nack: %+v", again)
	}
}

// The listening connection is ended by the server: waiters are woken to look
// again, the queue listens again by itself, and wake-ups work as before.
func TestListenerReconnects(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := pgqueue.New(openDB(t, dsn), pgqueue.Options{Poll: time.Hour, MaxWait: time.Hour})
	defer a.Close()
	b := pgqueue.New(openDB(t, dsn), pgqueue.Options{Poll: time.Hour, MaxWait: time.Hour})
	defer b.Close()
	listening(t, a)
	listening(t, b)

	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgtest.AdminDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid()`, cfg.Database); err != nil {
		t.Fatal(err)
	}
	// Calls go on (the store replaces its connections).
	if _, err := a.Enqueue(ctx, queue.Message{Topic: "t", ID: "x"}); err != nil {
		t.Fatalf("enqueue after the connections were ended: %v", err)
	}
	listening(t, b)
	waitWoken(t, b, "after", func() {
		if _, err := a.Enqueue(ctx, queue.Message{Topic: "after", ID: "y"}); err != nil {
			t.Error(err)
		}
	})
}

// With a fake clock a lease runs out without sleeping, and the holder of an
// expired lease that nobody took may still ack.
func TestLeaseExpiryOnFakeClock(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	q := pgqueue.New(openDB(t, pgtest.NewDatabase(t)), pgqueue.Options{Clock: clk})
	defer q.Close()
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
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "b"}); err != nil {
		t.Fatal(err)
	}
	b, _ := q.Lease(ctx, "t", "w3", 1, time.Second)
	clk.Advance(time.Hour)
	if err := q.Ack(ctx, b[0]); err != nil {
		t.Fatalf("late ack of an untaken item: %v", err)
	}
}

// Items and leases survive the process: a new store and queue on the same
// database deliver the items again, the leased one once its lease ran out.
func TestItemsSurviveRestart(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	clk := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	q := pgqueue.New(db, pgqueue.Options{Clock: clk})
	for _, id := range []string{"a", "b"} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: id, Payload: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	if held, err := q.Lease(ctx, "t", "dies", 1, time.Minute); err != nil || len(held) != 1 {
		t.Fatal(held, err)
	}
	q.Close()
	db.Close()

	q = pgqueue.New(openDB(t, dsn), pgqueue.Options{Clock: clk})
	defer q.Close()
	got, err := q.Lease(ctx, "t", "next", 10, time.Minute)
	if err != nil || len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("before the dead lease ran out: %+v %v", got, err)
	}
	if err := q.Ack(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	got, err = q.Lease(ctx, "t", "next", 10, time.Minute)
	if err != nil || len(got) != 1 || got[0].ID != "a" || got[0].Attempts != 2 || string(got[0].Payload) != "a" {
		t.Fatalf("after the dead lease ran out: %+v %v", got, err)
	}
}

// A worker that restarts under its name takes back its leases at once;
// other owners' leases stay.
func TestReleaseOwner(t *testing.T) {
	q := pgqueue.New(openDB(t, pgtest.NewDatabase(t)), pgqueue.Options{})
	defer q.Close()
	for _, id := range []string{"a", "b", "c"} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	mine, err := q.Lease(ctx, "t", "worker-1", 2, time.Hour)
	if err != nil || len(mine) != 2 {
		t.Fatalf("lease: %v %d", err, len(mine))
	}
	if other, _ := q.Lease(ctx, "t", "worker-2", 1, time.Hour); len(other) != 1 {
		t.Fatal("worker-2 got nothing")
	}
	n, err := q.ReleaseOwner(ctx, "worker-1")
	if err != nil || n != 2 {
		t.Fatalf("released %d (%v), want 2", n, err)
	}
	again, _ := q.Lease(ctx, "t", "worker-1", 10, time.Hour)
	if len(again) != 2 {
		t.Fatalf("after release: %d visible, want worker-1's 2", len(again))
	}
	if err := q.Ack(ctx, mine[0]); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("the old lease still acks: %v", err)
	}
}

// Bytes PostgreSQL cannot keep as text are refused as Invalid, not as an
// outage.
func TestTextThePostgresCannotHold(t *testing.T) {
	q := pgqueue.New(openDB(t, pgtest.NewDatabase(t)), pgqueue.Options{})
	defer q.Close()
	_, err := q.Enqueue(ctx, queue.Message{Topic: "t\xff", ID: "x"})
	if fault.KindOf(err) != fault.Invalid {
		t.Fatalf("topic that is not UTF-8: %v", err)
	}
	_, err = q.Lease(ctx, "t", "\xfe", 1, time.Minute)
	if fault.KindOf(err) != fault.Invalid {
		t.Fatalf("owner that is not UTF-8: %v", err)
	}
}

// The database stops taking connections and ends those it had: queue calls
// fail with a retryable Unavailable, the listener is down; once it takes
// connections again the queue works by itself, with its items.
func TestDatabaseAway(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	q := pgqueue.New(openDB(t, dsn), pgqueue.Options{})
	defer q.Close()
	listening(t, q)
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "before"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgtest.AdminDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) }) // after the cleanup below
	name := pgx.Identifier{cfg.Database}.Sanitize()
	allow := func(on bool) {
		t.Helper()
		if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS %v", name, on)); err != nil {
			t.Fatal(err)
		}
	}
	allow(false)
	t.Cleanup(func() { allow(true) })
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid()`, cfg.Database); err != nil {
		t.Fatal(err)
	}

	unavailable := func(err error, what string) {
		t.Helper()
		fe, ok := fault.As(err)
		if !ok || fe.Kind != fault.Unavailable || !fe.Retryable {
			t.Fatalf("%s while the database is away: %v (%T), want a retryable Unavailable", what, err, err)
		}
	}
	_, err = q.Enqueue(ctx, queue.Message{Topic: "t", ID: "away"})
	unavailable(err, "enqueue")
	_, err = q.Lease(ctx, "t", "w", 1, time.Minute)
	unavailable(err, "lease")
	unavailable(q.Wait(ctx, "t"), "wait")
	deadline := time.Now().Add(20 * time.Second)
	for q.Listening() {
		if time.Now().After(deadline) {
			t.Fatal("the listener did not notice")
		}
		time.Sleep(10 * time.Millisecond)
	}

	t.Logf("away noticed")
	allow(true)
	for {
		_, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "after"})
		if err == nil {
			break
		}
		unavailable(err, "enqueue")
		if time.Now().After(deadline) {
			t.Fatalf("the queue did not recover: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("enqueue works again")
	listening(t, q)
	t.Logf("listening again")
	items, err := q.Lease(ctx, "t", "w", 10, time.Minute)
	if err != nil || ids(items) != "before,after" {
		t.Fatalf("after the outage: %v %v", ids(items), err)
	}
}

func ids(items []queue.Item) string {
	var s []string
	for _, it := range items {
		s = append(s, it.ID)
	}
	return strings.Join(s, ",")
}

// An item whose notification was lost (here: written without one, as by a
// process that died right after its COMMIT) is found within MaxWait.
func TestLostNotificationBoundedByMaxWait(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t))
	q := pgqueue.New(db, pgqueue.Options{Poll: time.Hour, MaxWait: 100 * time.Millisecond})
	defer q.Close()
	listening(t, q)
	found := make(chan error, 1)
	go func() {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		for {
			items, err := q.Lease(c, "quiet", "w", 1, time.Minute)
			if err != nil || len(items) > 0 {
				found <- err
				return
			}
			if err := q.Wait(c, "quiet"); err != nil {
				found <- err
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := db.Pool().Exec(ctx, `INSERT INTO queue_items (topic, id, payload, enqueued_at, visible_at)
		VALUES ('quiet', 'x', '', now(), now())`); err != nil {
		t.Fatal(err)
	}
	if err := <-found; err != nil {
		t.Fatalf("an item without a notification was not found: %v", err)
	}
}

// Expired items nobody holds are swept (queue.Message.ExpiresAt), as in
// the local queue.
func TestExpiry(t *testing.T) {
	pgtest.AdminDSN(t)
	queuetest.RunExpiry(t, func(t *testing.T, clk clock.Clock) queuetest.SweptQueue {
		return pgqueue.New(openDB(t, pgtest.NewDatabase(t)), pgqueue.Options{Clock: clk, SweepEvery: -1})
	}, pgqueue.SetSweepBatch)
}

// Every process sweeps in the background: a results topic nobody reads any
// more (its gateway is gone) empties once its items expired, with no call
// from anyone. A second queue on the database, as another gateway, does it.
func TestBackgroundSweep(t *testing.T) {
	pgtest.AdminDSN(t)
	db := openDB(t, pgtest.NewDatabase(t))
	clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	gone := pgqueue.New(db, pgqueue.Options{Clock: clk, SweepEvery: -1})
	for i := range 5 {
		if _, err := gone.Enqueue(ctx, queue.Message{Topic: "agent.results.gone-1", ID: fmt.Sprint(i), ExpiresAt: clk.Now().Add(11 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	gone.Close()
	clk.Advance(12 * time.Minute)
	other := pgqueue.New(db, pgqueue.Options{Clock: clk, SweepEvery: 10 * time.Millisecond})
	defer other.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM queue_items`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d expired rows still in queue_items 20 s after they expired", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
