package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// backend gives the shared table code (internal/store/sqlstore) this
// database: reads on the read pool, writes through the writer's group
// commit, and SQLite's dialect (dialect.go).
type backend struct {
	dialect
	db *DB
}

var _ sqlstore.Backend = backend{}

func (b backend) Read(_ context.Context, fn func(q sqlstore.Querier) error) error {
	return fn(readQuerier{b.db})
}

func (b backend) Write(ctx context.Context, fn func(tx sqlstore.Querier) error) error {
	return b.db.Write(ctx, func(tx *Tx) error { return fn(txQuerier{tx}) })
}

// WriteOne is a Write of one statement: the writer commits it with the
// others of its batch.
func (b backend) WriteOne(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := b.Write(ctx, func(tx sqlstore.Querier) error {
		var err error
		n, err = tx.Exec(ctx, query, args...)
		return err
	})
	return n, err
}

func (b backend) Now() time.Time { return fromMicros(micros(b.db.clock.Now())) }

// readQuerier runs the shared code's reads on the read pool.
type readQuerier struct{ db *DB }

// Exec is there for the interface: the read pool's connections are
// query-only, so a statement that writes fails here (a bug: writes go
// through Write).
func (q readQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.db.rdb.ExecContext(ctx, query, args...)
	return rowsAffected(res, err)
}

func (q readQuerier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := q.db.Read(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (q readQuerier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return q.db.ReadRow(ctx, query, args...)
}

// txQuerier runs them in the writer's transaction (which has no context of
// its own: a write, once taken, runs to its commit).
type txQuerier struct{ tx *Tx }

func (q txQuerier) Exec(_ context.Context, query string, args ...any) (int64, error) {
	res, err := q.tx.Exec(query, args...)
	return rowsAffected(res, err)
}

func (q txQuerier) Query(_ context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := q.tx.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (q txQuerier) QueryRow(_ context.Context, query string, args ...any) sqlstore.Row {
	return q.tx.QueryRow(query, args...)
}

func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// sqlRows is *sql.Rows as sqlstore.Rows. Close's error is dropped, as a
// deferred Close's always was: a failed read shows in Next and Err.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
