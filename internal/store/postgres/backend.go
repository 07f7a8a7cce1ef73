package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// backend gives the shared table code (internal/store/sqlstore) this
// database: Read and Write with their retries, times as timestamptz, and
// the $n placeholders pgx wants.
type backend struct{ db *DB }

var _ sqlstore.Backend = backend{}

func (b backend) Read(ctx context.Context, fn func(q sqlstore.Querier) error) error {
	return b.db.Read(ctx, func(q Querier) error { return fn(numbered{q}) })
}

func (b backend) Write(ctx context.Context, fn func(tx sqlstore.Querier) error) error {
	return b.db.Write(ctx, func(tx Tx) error { return fn(numberedTx{numbered{tx}, tx}) })
}

func (b backend) WriteOne(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := b.db.WriteOne(ctx, sqlstore.Numbered(query), args...)
	return tag.RowsAffected(), err
}

func (b backend) Now() time.Time { return b.db.now() }

// Time binds a time as it is: pgx sends timestamptz at microsecond
// precision.
func (backend) Time(t time.Time) any { return t }

func (backend) NullTime(t *time.Time) any { return t }

func (backend) ScanTime(dst *time.Time) any { return utcTime{dst} }

func (backend) ScanNullTime(dst **time.Time) any { return nullUTCTime{dst} }

func (backend) IsUnique(err error) bool               { return isUnique(err) }
func (backend) IsForeignKey(err error) bool           { return isForeignKey(err) }
func (backend) IsNoRows(err error) bool               { return isNoRows(err) }
func (backend) ReadErr(what string, err error) error  { return readErr(what, err) }
func (backend) WriteErr(what string, err error) error { return writeErr(what, err) }
func (backend) Storable(ss ...string) bool            { return storable(ss...) }
func (backend) RowLock() string                       { return ` FOR NO KEY UPDATE` }
func (backend) KeyShareLock() string                  { return ` FOR KEY SHARE` }
func (backend) Greatest() string                      { return "GREATEST" }

// SerialLock is a transaction-scoped advisory lock on the name's hash.
func (backend) SerialLock(name string) string {
	return `SELECT pg_advisory_xact_lock(hashtext('` + name + `'))`
}

// utcTime scans a timestamptz into a time, UTC.
type utcTime struct{ dst *time.Time }

func (u utcTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid || v.InfinityModifier != pgtype.Finite {
		return errors.New("a time column holds NULL or infinity")
	}
	*u.dst = v.Time.UTC()
	return nil
}

// nullUTCTime is utcTime for a column that may be NULL (nil).
type nullUTCTime struct{ dst **time.Time }

func (u nullUTCTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		*u.dst = nil
		return nil
	}
	var t time.Time
	if err := (utcTime{&t}).ScanTimestamptz(v); err != nil {
		return err
	}
	*u.dst = &t
	return nil
}

// numbered is a Querier that takes the shared code's ? placeholders.
type numbered struct{ q Querier }

func (n numbered) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := n.q.Exec(ctx, sqlstore.Numbered(query), args...)
	return tag.RowsAffected(), err
}

func (n numbered) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := n.q.Query(ctx, sqlstore.Numbered(query), args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (n numbered) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return n.q.QueryRow(ctx, sqlstore.Numbered(query), args...)
}

var _ sqlstore.Pipeliner = numbered{}

// ExecEach sends the statements in one batch: one round trip for all.
func (n numbered) ExecEach(ctx context.Context, query string, args [][]any) error {
	if len(args) == 0 {
		return nil
	}
	br := n.q.SendBatch(ctx, batch(query, args))
	for range args {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
	}
	return br.Close()
}

// QueryEach sends the queries in one batch and reads their rows in order.
func (n numbered) QueryEach(ctx context.Context, query string, args [][]any, scan func(i int, row sqlstore.Row) error) error {
	if len(args) == 0 {
		return nil
	}
	br := n.q.SendBatch(ctx, batch(query, args))
	for i := range args {
		if err := scan(i, br.QueryRow()); err != nil {
			br.Close()
			return err
		}
	}
	return br.Close()
}

// numberedTx is numbered in a write transaction, which can COPY.
type numberedTx struct {
	numbered
	tx Tx
}

var _ sqlstore.Copier = numberedTx{}

func (n numberedTx) CopyRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	_, err := n.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	return err
}

func batch(query string, args [][]any) *pgx.Batch {
	q := sqlstore.Numbered(query)
	b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(args))}
	for _, a := range args {
		b.Queue(q, a...)
	}
	return b
}

// Unnest binds one array a column, each of its SQL type.
func (backend) Unnest(types []string, rows [][]any) (string, []any, bool) {
	cols := make([]string, len(types))
	args := make([]any, len(types))
	for j, t := range types {
		cols[j] = "?::" + t + "[]"
		col := make([]any, len(rows))
		for i, r := range rows {
			col[i] = r[j]
		}
		args[j] = col
	}
	return "SELECT * FROM unnest(" + strings.Join(cols, ", ") + ")", args, true
}

// Inserted: a row the statement inserted has no deleting transaction yet.
func (backend) Inserted() string { return "xmax = 0" }

// ReserveEvents bumps the execution's counter, holding its row lock until
// COMMIT.
func (backend) ReserveEvents(id string, n, max int64) (string, []any) {
	return `UPDATE executions SET event_seq = event_seq + ? WHERE id = ? AND event_seq + ? <= ? RETURNING event_seq`, []any{n, id, n, max}
}
