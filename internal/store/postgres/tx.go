package postgres

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier runs statements: a transaction in Write, a pooled connection in
// Read.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Tx is the transaction of a Write: Querier's statements, and COPY.
type Tx interface {
	Querier
	CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error)
}

const (
	// maxAttempts bounds how often one call is tried: a lost connection or
	// a transaction PostgreSQL rolled back for a concurrent one.
	maxAttempts = 4
	// commitTimeout bounds the wait for a COMMIT once it has been sent. The
	// caller's context does not cut it short: a COMMIT interrupted halfway
	// leaves the outcome unknown, which is worse than a late answer.
	commitTimeout = 30 * time.Second
	// resetEvery rate-limits pool resets after lost connections.
	resetEvery = time.Second
	// suspectFor is how long after a lost connection the pool pings every
	// connection before handing it out.
	suspectFor = 5 * time.Second
)

// Write runs fn in a transaction on a pooled connection and returns nil
// only once COMMIT has succeeded. BEGIN goes with fn's first statement
// (lazyTx): a write of one statement is two round trips. fn may run more
// than once: when the
// connection turns out to be dead before COMMIT was sent (PostgreSQL has then
// rolled the transaction back), or PostgreSQL rolled it back for a deadlock or
// serialization failure, it runs again on a fresh connection. So fn sets its
// results afresh each time and does nothing but database work. A connection
// lost during COMMIT is never retried: the error says the write may or may
// not have been stored.
func (db *DB) Write(ctx context.Context, fn func(tx Tx) error) error {
	return db.attempt(ctx, func(c *pgxpool.Conn) (bool, error) {
		tx := newLazyTx(c.Conn())
		if err := fn(tx); err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
			tx.Rollback(rctx)
			cancel()
			return true, err
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
		defer cancel()
		if err := tx.Commit(cctx); err != nil {
			if c.Conn().IsClosed() || lostConnErr(err) {
				db.connLost(err)
				return false, commitUnknown(err)
			}
			// The server answered: the transaction was rolled back.
			return true, err
		}
		return false, nil
	})
}

// Read runs fn on a pooled connection (outside a transaction: each statement
// sees what was committed when it started). fn runs again on a fresh
// connection when the one it had was dead. fn must finish with its rows
// before it returns.
func (db *DB) Read(ctx context.Context, fn func(q Querier) error) error {
	return db.attempt(ctx, func(c *pgxpool.Conn) (bool, error) {
		return true, fn(c)
	})
}

// attempt acquires a connection and runs try on it, again while try's error
// may be retried (retryable true and a lost connection or a transient
// rollback) and the context lives.
func (db *DB) attempt(ctx context.Context, try func(c *pgxpool.Conn) (retryable bool, err error)) error {
	if db.closed.Load() {
		return errClosed()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for n := 1; ; n++ {
		c, err := db.pool.Acquire(ctx)
		if err != nil {
			// A dial that fails means the database is away: say so now
			// rather than dial again.
			if db.closed.Load() {
				return errClosed()
			}
			return err
		}
		retryable, err := try(c)
		lost := err != nil && (c.Conn().IsClosed() || lostConnErr(err))
		c.Release()
		if err == nil || !retryable || n == maxAttempts || ctx.Err() != nil {
			return err
		}
		switch {
		case lost:
			db.connLost(err)
		case transient(err):
			// Let the other transaction finish before trying again.
			d := time.Duration(n)*time.Millisecond + rand.N(2*time.Millisecond)
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
		default:
			return err
		}
	}
}

// connLost closes the pool's connections after one was found dead: when the
// server ended one (a restart, pg_terminate_backend) it usually ended all, and
// the next call should dial rather than find another dead one. Connections
// in use during the reset are closed when they come back; for a few seconds
// every connection is pinged before use (see Open), which covers the ones a
// rate-limited reset left.
func (db *DB) connLost(err error) {
	now := time.Now().UnixNano()
	db.lastLoss.Store(now)
	last := db.lastReset.Load()
	if now-last < int64(resetEvery) || !db.lastReset.CompareAndSwap(last, now) {
		return
	}
	db.log.Warn("a database connection was lost; reconnecting", "error", err)
	db.pool.Reset()
}
