// Package local is the Queue of a single machine: a leased table
// (queue_items) in the SQLite store, written through the store's group
// commit, with in-process wake-ups instead of polling. Nothing else runs: no
// broker, no extra service.
//
// An item's visible_at says when it may be leased next; leasing moves it to
// the end of the lease, so an expired lease is simply a visible item again
// and a killed process's work resumes after its leases run out. Ack deletes
// the row, so an acked item cannot come back. Items with an expiry
// (queue.Message.ExpiresAt) that nobody holds are deleted once it has passed,
// by a sweep every queue.DefaultSweepEvery (see Sweep).
package local

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// MaxWait bounds one Wait when nothing is due, so a consumer re-checks even if
// a wake-up were ever missed.
const MaxWait = time.Minute

// Queue is the local queue.
type Queue struct {
	db    *sqlite.DB
	clock clock.Clock

	mu        sync.Mutex
	signals   map[string]chan struct{} // per topic, closed on a wake-up
	closed    bool
	done      chan struct{}
	sweepDone chan struct{}
}

var _ queue.Queue = (*Queue)(nil)

// New makes a queue on db (which must stay open while the queue is used)
// and starts its background sweep of expired items. clk is the clock for
// visibility, leases and expiries (nil: the real clock).
func New(db *sqlite.DB, clk clock.Clock) *Queue {
	if clk == nil {
		clk = clock.Real{}
	}
	q := &Queue{db: db, clock: clk, signals: map[string]chan struct{}{}, done: make(chan struct{}), sweepDone: make(chan struct{})}
	go func() {
		defer close(q.sweepDone)
		queue.RunSweeps(q.done, queue.DefaultSweepEvery, q, slog.New(slog.DiscardHandler))
	}()
	return q
}

func (q *Queue) now() int64 { return q.clock.Now().UnixMicro() }

// Enqueue implements queue.Queue.
func (q *Queue) Enqueue(ctx context.Context, m queue.Message) (bool, error) {
	if err := queue.CheckMessage(m); err != nil {
		return false, err
	}
	if err := q.check(); err != nil {
		return false, err
	}
	now := q.now()
	visible := now
	if !m.NotBefore.IsZero() && m.NotBefore.UnixMicro() > now {
		visible = m.NotBefore.UnixMicro()
	}
	payload := m.Payload
	if payload == nil {
		payload = []byte{}
	}
	var expires *int64
	if !m.ExpiresAt.IsZero() {
		at := m.ExpiresAt.UnixMicro()
		expires = &at
	}
	var added bool
	err := q.db.Write(ctx, func(tx *sqlite.Tx) error {
		res, err := tx.Exec(`INSERT INTO queue_items (topic, id, grp, payload, enqueued_at, visible_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (topic, id) DO NOTHING`, m.Topic, m.ID, m.Group, payload, now, visible, expires)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		added = n == 1
		return nil
	})
	if err != nil {
		return false, storeErr(err)
	}
	if added {
		q.wake(m.Topic)
	}
	return added, nil
}

// Lease implements queue.Queue.
func (q *Queue) Lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]queue.Item, error) {
	if err := queue.CheckLease(topic, owner, n, d); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	now := q.clock.Now()
	until := now.Add(d)
	var items []queue.Item
	err := q.db.Write(ctx, func(tx *sqlite.Tx) error {
		groups, err := dueGroups(tx, topic, now.UnixMicro(), n)
		if err != nil {
			return err
		}
		perGroup := make([][]leased, len(groups))
		for g, grp := range groups {
			if perGroup[g], err = dueItems(tx, topic, grp, now.UnixMicro(), n); err != nil {
				return err
			}
		}
		picked, served := queue.Interleave(perGroup, n)
		items = make([]queue.Item, len(picked))
		for i, l := range picked {
			it := l.it
			it.Topic, it.LeasedBy, it.LeaseUntil = topic, owner, time.UnixMicro(until.UnixMicro()).UTC()
			it.Token = ids.New(ids.LeaseToken)
			it.Attempts++
			if _, err := tx.Exec(`UPDATE queue_items SET owner = ?, token = ?, visible_at = ?, attempts = attempts + 1 WHERE seq = ?`,
				owner, it.Token, until.UnixMicro(), l.seq); err != nil {
				return err
			}
			items[i] = it
		}
		return markServed(tx, topic, groups, served)
	})
	if err != nil {
		return nil, storeErr(err)
	}
	return items, nil
}

// Ack implements queue.Queue.
func (q *Queue) Ack(ctx context.Context, it queue.Item) error {
	return q.onLease(ctx, it, `DELETE FROM queue_items WHERE topic = ? AND id = ? AND token = ?`)
}

// Nack implements queue.Queue.
func (q *Queue) Nack(ctx context.Context, it queue.Item, delay time.Duration) error {
	if err := queue.CheckDuration("retry delay", delay, 0, queue.MaxDelay); err != nil {
		return err
	}
	visible := q.clock.Now().Add(delay).UnixMicro()
	if err := q.onLease(ctx, it, `UPDATE queue_items SET owner = NULL, token = NULL, visible_at = ?
		WHERE topic = ? AND id = ? AND token = ?`, visible); err != nil {
		return err
	}
	q.wake(it.Topic)
	return nil
}

// Extend implements queue.Queue.
func (q *Queue) Extend(ctx context.Context, it queue.Item, d time.Duration) (queue.Item, error) {
	if err := queue.CheckDuration("lease", d, time.Millisecond, queue.MaxLease); err != nil {
		return it, err
	}
	until := q.clock.Now().Add(d)
	if err := q.onLease(ctx, it, `UPDATE queue_items SET visible_at = ? WHERE topic = ? AND id = ? AND token = ?`, until.UnixMicro()); err != nil {
		return it, err
	}
	it.LeaseUntil = time.UnixMicro(until.UnixMicro()).UTC()
	return it, nil
}

// onLease runs a statement that must touch exactly the leased row; the last
// three placeholders are topic, id and token, after any leading args.
func (q *Queue) onLease(ctx context.Context, it queue.Item, stmt string, lead ...any) error {
	if err := queue.CheckItem(it); err != nil {
		return err
	}
	if err := q.check(); err != nil {
		return err
	}
	args := append(lead, it.Topic, it.ID, it.Token)
	err := q.db.Write(ctx, func(tx *sqlite.Tx) error {
		res, err := tx.Exec(stmt, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return queue.LeaseLost(it)
		}
		return nil
	})
	return storeErr(err)
}

// Wait implements queue.Queue. It listens first and looks second, so an
// enqueue between a consumer's empty Lease and its Wait is never missed.
func (q *Queue) Wait(ctx context.Context, topic string) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return closedErr()
	}
	sig := q.signals[topic]
	if sig == nil {
		sig = make(chan struct{})
		q.signals[topic] = sig
	}
	q.mu.Unlock()

	wait := MaxWait
	var next int64
	err := q.db.ReadRow(ctx, `SELECT COALESCE(MIN(visible_at), 0) FROM queue_items WHERE topic = ?`, topic).Scan(&next)
	if err != nil {
		return storeErr(err)
	}
	if next != 0 {
		due := time.Duration(next-q.now()) * time.Microsecond
		if due <= 0 {
			return nil
		}
		wait = min(wait, due)
	}
	if err := queue.Sleep(ctx, wait, sig, q.done); err != nil {
		return err
	}
	return q.check()
}

// wake tells the topic's waiters that an item may be visible.
func (q *Queue) wake(topic string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if sig := q.signals[topic]; sig != nil {
		close(sig)
		delete(q.signals, topic)
	}
}

// Close implements queue.Queue: waiters return, later calls fail. The store
// stays open.
func (q *Queue) Close() error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.done)
	}
	q.mu.Unlock()
	<-q.sweepDone
	return nil
}

func (q *Queue) check() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return closedErr()
	}
	return nil
}

func closedErr() error { return fault.New(fault.Unavailable, "the queue is closed") }

func storeErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fault.New(fault.Unavailable, "the queue's store cannot be used").WithCause(err).Retry(0)
}

// ReleaseOthers makes every item leased by an owner other than owner visible
// at once. The local queue lives in a data directory that one process holds
// (the store's directory lock), so on start-up every such lease belonged to a
// process that is gone: waiting for it to run out would only delay recovery.
// It returns how many leases were released.
func (q *Queue) ReleaseOthers(ctx context.Context, owner string) (int64, error) {
	if err := q.check(); err != nil {
		return 0, err
	}
	var n int64
	err := q.db.Write(ctx, func(tx *sqlite.Tx) error {
		res, err := tx.Exec(`UPDATE queue_items SET owner = NULL, token = NULL, visible_at = ?
			WHERE owner IS NOT NULL AND owner <> ?`, q.now(), owner)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, storeErr(err)
	}
	if n > 0 {
		q.mu.Lock()
		topics := make([]string, 0, len(q.signals))
		for t := range q.signals {
			topics = append(topics, t)
		}
		q.mu.Unlock()
		for _, t := range topics {
			q.wake(t)
		}
	}
	return n, nil
}
