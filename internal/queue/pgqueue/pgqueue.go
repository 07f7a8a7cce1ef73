// Package pgqueue is the Queue of many machines on PostgreSQL: a leased table
// (queue_items) in the PostgreSQL store's database, shared by every gateway
// and worker that opens it. It meets the same contract as the local queue
// (internal/queue/queuetest).
//
// Leases take rows with FOR UPDATE SKIP LOCKED, so consumers in any number of
// processes take different items without waiting on each other. An item's
// visible_at says when it may be leased next; leasing moves it to the end of
// the lease, so an expired lease is simply a visible item again and a dead
// process's work is delivered again after its leases run out. Ack deletes the
// row, so an acked item cannot come back.
//
// Wake-ups cross processes with LISTEN/NOTIFY: after an enqueue, a nack or a
// shortened lease commits, the topic is notified on the channel sluice_queue
// (from a connection of the queue's own, see notifier.go for why not inside
// the write). Each Queue keeps one listening connection; while it is down
// (the database restarts, the connection is cut) waiters poll every
// Options.Poll instead. A notification that is lost (the sender died right
// after its write) delays work by at most Options.MaxWait, which bounds every
// wait.
//
// Items with an expiry (queue.Message.ExpiresAt: agent results) that nobody
// holds are deleted once it has passed, by a sweep every Options.SweepEvery in
// each process (see Sweep): the results topic of a gateway that stopped or
// died is read by nobody, and its rows would otherwise stay forever.
//
// Times come from the injected clock of each process, as in the stores: the
// machines' clocks should agree (NTP), since a skew between two machines
// shortens or lengthens the leases one gives and the other honours by as much.
package pgqueue

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

// Channel is the NOTIFY channel; the payload is the topic.
const Channel = "sluice_queue"

// Defaults of Options.
const (
	DefaultPoll    = time.Second
	DefaultMaxWait = 5 * time.Second
)

// Options configure New.
type Options struct {
	// Clock is the clock for visibility and leases (nil: the real clock).
	Clock clock.Clock
	// Logger receives what the queue has to say (nil: nothing is logged).
	Logger *slog.Logger
	// Poll bounds a Wait while the listening connection is down; default 1 s.
	Poll time.Duration
	// MaxWait bounds a Wait while notifications arrive, so a consumer looks
	// again even when a notification was lost; default 5 s.
	MaxWait time.Duration
	// SweepEvery is how often expired items are swept in the background;
	// 0: queue.DefaultSweepEvery, negative: never (call Sweep yourself).
	SweepEvery time.Duration
}

// Queue is the PostgreSQL queue.
type Queue struct {
	db      *postgres.DB
	clock   clock.Clock
	log     *slog.Logger
	poll    time.Duration
	maxWait time.Duration

	mu        sync.Mutex
	signals   map[string]chan struct{} // per topic, closed on a wake-up
	listening bool
	pending   map[string]bool // topics to notify
	closed    bool
	done      chan struct{}

	kick       chan struct{} // a topic is pending
	stop       context.CancelFunc
	listenDone chan struct{}
	notifyDone chan struct{}
	sweepDone  chan struct{}
}

var _ queue.Queue = (*Queue)(nil)

// New makes a queue on db (which must stay open while the queue is used) and
// starts its listening and notifying connections in the background: New
// itself never fails, and until the listener is up, waiters poll.
func New(db *postgres.DB, o Options) *Queue {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = queue.DefaultSweepEvery
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue{
		db: db, clock: o.Clock, log: o.Logger, poll: o.Poll, maxWait: o.MaxWait,
		signals: map[string]chan struct{}{}, pending: map[string]bool{}, done: make(chan struct{}),
		kick: make(chan struct{}, 1), stop: cancel, listenDone: make(chan struct{}), notifyDone: make(chan struct{}),
		sweepDone: make(chan struct{}),
	}
	go q.listen(ctx)
	go q.notify(ctx)
	go func() {
		defer close(q.sweepDone)
		if o.SweepEvery > 0 {
			queue.RunSweeps(q.done, o.SweepEvery, q, o.Logger)
		}
	}()
	return q
}

func (q *Queue) now() time.Time { return q.clock.Now().UTC().Truncate(time.Microsecond) }

// Enqueue implements queue.Queue. A new item notifies the topic's waiters
// everywhere, a delayed one too (so they reckon with its time).
func (q *Queue) Enqueue(ctx context.Context, m queue.Message) (bool, error) {
	if err := queue.CheckMessage(m); err != nil {
		return false, err
	}
	if err := q.check(); err != nil {
		return false, err
	}
	now := q.now()
	visible := now
	if !m.NotBefore.IsZero() && m.NotBefore.After(now) {
		visible = m.NotBefore
	}
	payload := m.Payload
	if payload == nil {
		payload = []byte{}
	}
	var expires *time.Time
	if !m.ExpiresAt.IsZero() {
		at := m.ExpiresAt.UTC().Truncate(time.Microsecond)
		expires = &at
	}
	var added bool
	err := q.db.Write(ctx, func(tx postgres.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO queue_items (topic, id, grp, payload, enqueued_at, visible_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (topic, id) DO NOTHING`, m.Topic, m.ID, m.Group, payload, now, visible, expires)
		added = err == nil && tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, postgres.WriteError("the queue item", err)
	}
	if added {
		q.announce(m.Topic)
	}
	return added, nil
}

// Lease implements queue.Queue: round-robin across groups (see fair.go),
// skipping rows other consumers hold locked at that moment.
func (q *Queue) Lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]queue.Item, error) {
	if err := queue.CheckLease(topic, owner, n, d); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(owner) || strings.IndexByte(owner, 0) >= 0 {
		return nil, fault.New(fault.Invalid, "owner holds text the database cannot store (not valid UTF-8, or a NUL byte)")
	}
	now := q.now()
	until := now.Add(d)
	var items []queue.Item
	err := q.db.Write(ctx, func(tx postgres.Tx) error {
		groups, err := dueGroups(ctx, tx, topic, now, n)
		if err != nil {
			return err
		}
		perGroup := make([][]leased, len(groups))
		for g, grp := range groups {
			if perGroup[g], err = dueItems(ctx, tx, topic, grp, now, n); err != nil {
				return err
			}
		}
		picked, served := queue.Interleave(perGroup, n)
		items = make([]queue.Item, len(picked))
		for i, l := range picked {
			it := l.it
			it.Topic, it.LeasedBy, it.LeaseUntil = topic, owner, until
			if err := tx.QueryRow(ctx, `UPDATE queue_items SET owner = $1, token = gen_random_uuid()::text, visible_at = $2, attempts = attempts + 1
				WHERE seq = $3 RETURNING token, attempts`, owner, until, l.seq).Scan(&it.Token, &it.Attempts); err != nil {
				return err
			}
			items[i] = it
		}
		return markServed(ctx, tx, topic, groups, served)
	})
	if err != nil {
		return nil, postgres.WriteError("the queue's leases", err)
	}
	return items, nil
}

// Ack implements queue.Queue.
func (q *Queue) Ack(ctx context.Context, it queue.Item) error {
	return q.onLease(ctx, it, `DELETE FROM queue_items WHERE topic = $1 AND id = $2 AND token = $3`)
}

// Nack implements queue.Queue.
func (q *Queue) Nack(ctx context.Context, it queue.Item, delay time.Duration) error {
	if err := queue.CheckDuration("retry delay", delay, 0, queue.MaxDelay); err != nil {
		return err
	}
	visible := q.now().Add(delay)
	if err := q.onLease(ctx, it, `UPDATE queue_items SET owner = NULL, token = NULL, visible_at = $4
		WHERE topic = $1 AND id = $2 AND token = $3`, visible); err != nil {
		return err
	}
	q.announce(it.Topic)
	return nil
}

// Extend implements queue.Queue. A lease made shorter than it was notifies
// the topic, so waiters reckon with its earlier end.
func (q *Queue) Extend(ctx context.Context, it queue.Item, d time.Duration) (queue.Item, error) {
	if err := queue.CheckDuration("lease", d, time.Millisecond, queue.MaxLease); err != nil {
		return it, err
	}
	if err := queue.CheckItem(it); err != nil {
		return it, err
	}
	if err := q.check(); err != nil {
		return it, err
	}
	until := q.now().Add(d)
	var was time.Time
	err := q.db.Write(ctx, func(tx postgres.Tx) error {
		err := tx.QueryRow(ctx, `WITH old AS (
				SELECT seq, visible_at FROM queue_items WHERE topic = $2 AND id = $3 AND token = $4 FOR UPDATE),
			upd AS (
				UPDATE queue_items q SET visible_at = $1 FROM old WHERE q.seq = old.seq RETURNING old.visible_at AS was)
			SELECT was FROM upd`, until, it.Topic, it.ID, it.Token).Scan(&was)
		if postgres.IsNoRows(err) {
			return queue.LeaseLost(it)
		}
		return err
	})
	if err != nil {
		return it, postgres.WriteError("the queue's lease", err)
	}
	if until.Before(was) {
		q.announce(it.Topic)
	}
	it.LeaseUntil = until
	return it, nil
}

// onLease runs a statement that must touch exactly the leased row: its
// first three parameters are topic, id and token, any others follow.
func (q *Queue) onLease(ctx context.Context, it queue.Item, stmt string, more ...any) error {
	if err := queue.CheckItem(it); err != nil {
		return err
	}
	if err := q.check(); err != nil {
		return err
	}
	args := append([]any{it.Topic, it.ID, it.Token}, more...)
	err := q.db.Write(ctx, func(tx postgres.Tx) error {
		tag, err := tx.Exec(ctx, stmt, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return queue.LeaseLost(it)
		}
		return nil
	})
	return postgres.WriteError("the queue item", err)
}

// ReleaseOwner makes every item leased by owner visible at once and returns
// how many there were: a worker that restarts under the same owner name
// takes back the work of its previous life without waiting for the leases to
// run out. (Unlike the local queue there is no ReleaseOthers: other owners
// may be alive on other machines.)
func (q *Queue) ReleaseOwner(ctx context.Context, owner string) (int64, error) {
	if err := q.check(); err != nil {
		return 0, err
	}
	var (
		n      int64
		topics []string
	)
	err := q.db.Write(ctx, func(tx postgres.Tx) error {
		n, topics = 0, topics[:0]
		rows, err := tx.Query(ctx, `UPDATE queue_items SET owner = NULL, token = NULL, visible_at = $1
			WHERE owner = $2 RETURNING topic`, q.now(), owner)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				return err
			}
			n++
			if !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return 0, postgres.WriteError("the queue's leases", err)
	}
	for _, t := range topics {
		q.announce(t)
	}
	return n, nil
}

// Wait implements queue.Queue. It registers first and looks second, so an
// item that arrives between a consumer's empty Lease and its Wait is never
// missed: either the look sees it, or its notification comes after the
// registration.
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
	wait := q.maxWait
	if !q.listening {
		wait = q.poll
	}
	q.mu.Unlock()

	var next *time.Time
	err := q.db.Read(ctx, func(qr postgres.Querier) error {
		return qr.QueryRow(ctx, `SELECT MIN(visible_at) FROM queue_items WHERE topic = $1`, topic).Scan(&next)
	})
	if err != nil {
		return postgres.ReadError("the queue", err)
	}
	if next != nil {
		due := next.Sub(q.clock.Now())
		if due <= 0 {
			return nil
		}
		wait = min(wait, due)
	}
	if err := queue.Sleep(ctx, wait, sig, q.done); err != nil {
		return err
	}
	// Close wakes every waiter too: a closed queue says so.
	return q.check()
}

// wake tells the topic's waiters in this process that an item may be
// visible.
func (q *Queue) wake(topic string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if sig := q.signals[topic]; sig != nil {
		close(sig)
		delete(q.signals, topic)
	}
}

// wakeAll wakes every waiter, to look again.
func (q *Queue) wakeAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for t, sig := range q.signals {
		close(sig)
		delete(q.signals, t)
	}
}

// Close implements queue.Queue: waiters return, later calls fail, the
// listening connection closes. The store stays open.
func (q *Queue) Close() error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.done)
	}
	q.mu.Unlock()
	q.stop()
	<-q.listenDone
	<-q.notifyDone
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
