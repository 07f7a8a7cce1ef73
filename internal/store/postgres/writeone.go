package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Lone statements (WriteOne) of concurrent callers go to PostgreSQL
// together: the statements waiting when a sender is free are sent as one
// pipeline ending in one Sync, which PostgreSQL runs as one implicit
// transaction and commits once, so a batch costs one round trip and one
// commit (one WAL flush) however many writes it carries. A lone caller's
// statement goes at once, by itself.
//
// A batch commits all or nothing: should any of its statements fail, none
// is stored, and each is sent again by itself so that it gets its own
// outcome. A connection lost once a batch was sent leaves every statement
// in it unknown (commitUnknown), as for one statement.
const (
	// oneSenders bounds the batches in flight at once (each holds a pooled
	// connection while it waits for its answer).
	oneSenders = 4
	// maxOneBatch bounds the statements of one batch.
	maxOneBatch = 64
)

type oneWrite struct {
	sql  string
	args []any
	tag  pgconn.CommandTag
	err  error
	done chan struct{}
}

var oneWritePool = sync.Pool{New: func() any { return &oneWrite{done: make(chan struct{}, 1)} }}

// oneWrites is the set of senders of lone statements.
type oneWrites struct {
	db   *DB
	reqs chan *oneWrite // unbuffered: a write is taken only by a running sender
	stop chan struct{}
	wg   sync.WaitGroup

	// batches and statements count what was sent (a test reads them);
	// queued counts writes waiting to be taken.
	batches, statements, queued atomic.Int64
}

func (db *DB) startOneWrites() {
	o := &oneWrites{db: db, reqs: make(chan *oneWrite), stop: make(chan struct{})}
	db.ones = o
	for range oneSenders {
		o.wg.Go(o.send)
	}
}

// close stops the senders once their batches are answered; writes sent
// after are refused.
func (o *oneWrites) close() {
	close(o.stop)
	o.wg.Wait()
}

// WriteOne runs one statement on its own, outside BEGIN and COMMIT, with
// the lone statements of other callers waiting at that moment (see
// oneWrites): PostgreSQL commits it when it has run, in one round trip
// where a Write of it costs two. The statement is its own commit, so it
// gets what COMMIT gets in Write: once taken by a sender, the caller's
// cancellation does not cut it short (commitTimeout bounds it), and a
// connection lost once it was sent is never retried, its outcome being
// unknown. A connection found dead before anything was sent, or a
// transient rollback, is tried again.
func (db *DB) WriteOne(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if db.closed.Load() {
		return pgconn.CommandTag{}, errClosed()
	}
	if err := ctx.Err(); err != nil {
		return pgconn.CommandTag{}, err
	}
	o := db.ones
	w := oneWritePool.Get().(*oneWrite)
	w.sql, w.args = sql, args
	o.queued.Add(1)
	select {
	case o.reqs <- w:
	case <-o.stop:
		o.queued.Add(-1)
		oneWritePool.Put(w)
		return pgconn.CommandTag{}, errClosed()
	case <-ctx.Done():
		o.queued.Add(-1)
		oneWritePool.Put(w)
		return pgconn.CommandTag{}, ctx.Err()
	}
	<-w.done
	tag, err := w.tag, w.err
	*w = oneWrite{done: w.done}
	oneWritePool.Put(w)
	return tag, err
}

// send is one sender: it takes a write, and every other waiting then, and
// sends them.
func (o *oneWrites) send() {
	batch := make([]*oneWrite, 0, maxOneBatch)
	for {
		select {
		case <-o.stop:
			return
		case w := <-o.reqs:
			batch = append(batch[:0], w)
		}
	gather:
		for len(batch) < maxOneBatch {
			select {
			case w := <-o.reqs:
				batch = append(batch, w)
			default:
				break gather
			}
		}
		o.queued.Add(-int64(len(batch)))
		o.batches.Add(1)
		o.statements.Add(int64(len(batch)))
		o.db.writeBatch(batch)
		for _, w := range batch {
			w.done <- struct{}{}
		}
	}
}

// writeBatch sends the statements of batch in one pipeline and sets each
// one's outcome. When PostgreSQL rejected one of them, which took the
// others' commit with it, each is sent again alone for its own outcome;
// any other failure (no connection, an outcome unknown) is every one's.
func (db *DB) writeBatch(batch []*oneWrite) {
	rejected, err := db.sendPipeline(batch)
	if err == nil || !rejected || len(batch) == 1 {
		for _, w := range batch {
			w.err = err
		}
		return
	}
	for i := range batch {
		_, batch[i].err = db.sendPipeline(batch[i : i+1])
	}
}

// sendPipeline sends the statements of batch with one Sync and sets their
// command tags. rejected says PostgreSQL answered with an error for one of
// them (the connection being fine), so that nothing of the batch was
// committed.
func (db *DB) sendPipeline(batch []*oneWrite) (rejected bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	err = db.attempt(ctx, func(c *pgxpool.Conn) (bool, error) {
		rejected = false
		b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(batch))}
		for _, w := range batch {
			b.Queue(w.sql, w.args...)
		}
		br := c.SendBatch(ctx, b)
		var err error
		for _, w := range batch {
			if w.tag, err = br.Exec(); err != nil {
				break
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		lost := err != nil && (c.Conn().IsClosed() || lostConnErr(err))
		if lost && !pgconn.SafeToRetry(err) {
			db.connLost(err)
			return false, commitUnknown(err)
		}
		var pe *pgconn.PgError
		rejected = !lost && errors.As(err, &pe)
		return true, err
	})
	return rejected, err
}
