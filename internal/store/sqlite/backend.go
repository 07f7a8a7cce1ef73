package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// backend gives the shared table code (internal/store/sqlstore) this
// database: reads on the read pool, writes through the writer's group
// commit, times as INTEGER microseconds.
type backend struct{ db *DB }

var _ sqlstore.Backend = backend{}

func (b backend) Read(_ context.Context, fn func(q sqlstore.Querier) error) error {
	return fn(readQuerier{b.db})
}

func (b backend) Write(ctx context.Context, fn func(tx sqlstore.Querier) error) error {
	return b.db.Write(ctx, func(tx *Tx) error { return fn(txQuerier{tx}) })
}

func (b backend) Now() time.Time { return fromMicros(micros(b.db.clock.Now())) }

func (backend) Time(t time.Time) any { return micros(t) }

func (backend) NullTime(t *time.Time) any { return nullMicros(t) }

func (backend) ScanTime(dst *time.Time) any { return microsTime{dst} }

func (backend) ScanNullTime(dst **time.Time) any { return nullMicrosTime{dst} }

func (backend) IsUnique(err error) bool               { return isUnique(err) }
func (backend) IsForeignKey(err error) bool           { return isForeignKey(err) }
func (backend) IsNoRows(err error) bool               { return isNoRows(err) }
func (backend) ReadErr(what string, err error) error  { return readErr(what, err) }
func (backend) WriteErr(what string, err error) error { return writeErr(what, err) }
func (backend) Storable(...string) bool               { return true } // SQLite stores any bytes as text
func (backend) RowLock() string                       { return "" }   // the one writer serialises writes
func (backend) KeyShareLock() string                  { return "" }   // the same
func (backend) SerialLock(string) string              { return "" }   // the same
func (backend) Greatest() string                      { return "MAX" }

// microsTime scans an INTEGER microseconds column into a time, UTC.
type microsTime struct{ dst *time.Time }

func (m microsTime) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("a time column holds %T, not INTEGER microseconds", src)
	}
	*m.dst = fromMicros(v)
	return nil
}

// nullMicrosTime is microsTime for a column that may be NULL (nil).
type nullMicrosTime struct{ dst **time.Time }

func (m nullMicrosTime) Scan(src any) error {
	if src == nil {
		*m.dst = nil
		return nil
	}
	var t time.Time
	if err := (microsTime{&t}).Scan(src); err != nil {
		return err
	}
	*m.dst = &t
	return nil
}

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

// Unnest: none; a statement a row is a call within the process.
func (backend) Unnest([]string, [][]any) (string, []any, bool) { return "", nil, false }

// Inserted: none; the one writer makes update-then-insert exact.
func (backend) Inserted() string { return "" }

// ReserveEvents reads the highest seq: the one writer makes it the last.
func (backend) ReserveEvents(id string, n, max int64) (string, []any) {
	return `SELECT m + ? FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM events WHERE execution_id = ?)
		WHERE m + ? <= ? AND EXISTS (SELECT 1 FROM executions WHERE id = ?)`, []any{n, id, n, max, id}
}
