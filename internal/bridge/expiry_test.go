package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// A gateway that stops while its tasks still run: the workers publish the
// results to its reply topic, which nobody reads again. They carry an
// expiry, and once the callers' wait and the margin have passed the table
// queues sweep them, so queue_items does not keep them forever (without the
// expiry the sweep finds nothing and this fails).
func TestDepartedGatewaysResultsAreSwept(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		testDepartedGateway(t, func(t *testing.T, clk clock.Clock) (queue.Queue, queue.Sweeper, func(topic string) int) {
			db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			q := local.New(db, clk)
			t.Cleanup(func() { q.Close() })
			return q, q, func(topic string) int {
				var n int
				if err := db.ReadRow(ctx, `SELECT count(*) FROM queue_items WHERE topic = ?`, topic).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.NewDatabase(t)
		testDepartedGateway(t, func(t *testing.T, clk clock.Clock) (queue.Queue, queue.Sweeper, func(topic string) int) {
			db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			q := pgqueue.New(db, pgqueue.Options{Clock: clk, SweepEvery: -1})
			t.Cleanup(func() { q.Close() })
			return q, q, func(topic string) int {
				var n int
				if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM queue_items WHERE topic = $1`, topic).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
		})
	})
}

func testDepartedGateway(t *testing.T, open func(t *testing.T, clk clock.Clock) (queue.Queue, queue.Sweeper, func(topic string) int)) {
	clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	q, sweeper, rows := open(t, clk)
	const maxWait = 10 * time.Minute

	// The gateway: three callers whose tasks the agent holds.
	release := make(chan struct{})
	inv := &fakeInvoker{fn: func(ctx context.Context, _ int, _ call) (json.RawMessage, error) {
		select {
		case <-release:
			return json.RawMessage(`{"late":true}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	gw := &Client{Queue: q, ReplyTo: "agent.results.gone-1", MaxWait: maxWait, Clock: clk}
	stopGateway := start(t, func(ctx context.Context) { _ = gw.Run(ctx) })
	callers, cancelCallers := context.WithCancel(ctx)
	gave := make(chan error, 3)
	for _, task := range []string{"t1", "t2", "t3"} {
		go func() {
			_, err := gw.Invoke(callers, "summarizer", task, nil, "")
			gave <- err
		}()
	}
	w := &Worker{Queue: q, Invoker: inv, Workers: 4, Clock: clk, ResultTTL: ResultTTL(maxWait)}
	start(t, func(ctx context.Context) { _ = w.Run(ctx, "worker") })
	eventually(t, "the worker to hold the three tasks", func() bool { return len(inv.recorded()) == 3 })

	// The gateway goes (its callers with it); the agent answers afterwards.
	cancelCallers()
	for range 3 {
		if err := <-gave; !errors.Is(err, context.Canceled) && fault.KindOf(err) != fault.Timeout {
			t.Fatalf("a departed caller got %v", err)
		}
	}
	stopGateway()
	close(release)
	eventually(t, "the three results on the departed reply topic, tasks acked", func() bool {
		return rows(gw.ReplyTo) == 3 && rows(agenthttp.TopicTasks) == 0
	})

	// Within the callers' wait nothing goes; after it and the margin, all.
	clk.Advance(maxWait)
	if n, err := sweeper.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("a sweep within the results' time deleted %d (%v)", n, err)
	}
	clk.Advance(ResultMargin + time.Second)
	if n, err := sweeper.Sweep(ctx); err != nil || n != 3 {
		t.Fatalf("a sweep after the results' time deleted %d (%v), want the 3 results", n, err)
	}
	if n := rows(gw.ReplyTo); n != 0 {
		t.Fatalf("%d results left on the departed reply topic", n)
	}
}
