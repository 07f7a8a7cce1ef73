package sqlstore

import (
	"context"
	"time"
)

// Querier runs statements written with ? placeholders: a write transaction
// inside Backend.Write, a read connection or pool inside Backend.Read.
type Querier interface {
	// Exec runs a statement and says how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Rows is a result set: pgx.Rows as it is, *sql.Rows behind a wrapper
// whose Close drops the error (a read's failure shows in Err).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is one row's result; its Scan reports the query's error, or the
// backend's no-rows error (see Dialect.IsNoRows).
type Row interface {
	Scan(dest ...any) error
}

// Backend is what a database package gives the shared table code: how it
// runs reads and writes, its clock and its dialect. Connection management,
// retries, SQLite's writer and PostgreSQL's locks and notifications stay in
// the backend.
type Backend interface {
	Dialect
	// Read runs fn with a Querier for reads. fn may run more than once
	// (PostgreSQL retries on a lost connection), so it sets its results
	// afresh each time.
	Read(ctx context.Context, fn func(q Querier) error) error
	// Write runs fn in one write transaction and returns nil only once it
	// is committed. fn may run more than once, as Read's.
	Write(ctx context.Context, fn func(tx Querier) error) error
	// WriteOne runs one statement as a write of its own and returns the
	// rows it changed once it is committed: what Write does for a function
	// of one Exec, in one round trip where the database allows (PostgreSQL
	// commits a lone statement by itself; BEGIN and COMMIT would be two
	// more). A write that must read what it found goes on with a Read.
	WriteOne(ctx context.Context, query string, args ...any) (int64, error)
	// Now is the store's clock, UTC, at the microsecond precision both
	// databases keep: what a write stores is what it returns.
	Now() time.Time
}
