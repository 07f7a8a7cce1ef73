package sqlstore

import "time"

// Dialect is where the two SQL databases differ for the table code. Each
// backend implements it once; the table code never asks which database it
// has.
type Dialect interface {
	// Time is a time column's bound value (SQLite: INTEGER microseconds
	// since the epoch; PostgreSQL: timestamptz). NullTime binds nil as NULL.
	Time(t time.Time) any
	NullTime(t *time.Time) any
	// ScanTime and ScanNullTime are the scan targets that decode a time
	// column into dst, in UTC; ScanNullTime sets nil for NULL.
	ScanTime(dst *time.Time) any
	ScanNullTime(dst **time.Time) any

	// IsUnique, IsForeignKey and IsNoRows recognise the driver's unique and
	// foreign-key violations and its "no row" error.
	IsUnique(err error) bool
	IsForeignKey(err error) bool
	IsNoRows(err error) bool
	// ReadErr and WriteErr turn the failure of reading or writing what
	// ("the account") into the backend's fault: a fault or a context error
	// passes through, nil stays nil.
	ReadErr(what string, err error) error
	WriteErr(what string, err error) error

	// Storable reports whether every s can be bound to a text column.
	// PostgreSQL refuses text that is not UTF-8 or holds NUL, so a lookup
	// by such a value is answered (nothing matches) without asking it.
	Storable(ss ...string) bool
	// RowLock is the clause that locks a row read in a write transaction
	// against concurrent writers ("" where writes are serial anyway, as in
	// SQLite's one writer).
	RowLock() string
	// KeyShareLock is the clause that keeps rows read in a write
	// transaction from being deleted or re-keyed until it ends, as a
	// foreign key's check does (PostgreSQL FOR KEY SHARE; "" under SQLite's
	// one writer).
	KeyShareLock() string
	// SerialLock is a statement that, run in a write transaction, makes the
	// writers that name the same lock wait for each other until it ends ("" where writes
	// are serial anyway). Meant for rare writes that count a whole table.
	SerialLock(name string) string
	// Greatest is the name of the two-argument maximum function.
	Greatest() string
	// Unnest is a row source for many rows in one statement: a SELECT of
	// the rows' columns, of the given SQL types, and the arguments it binds
	// (PostgreSQL: unnest of one array a column). ok is false where one
	// statement a row is as fast (SQLite, whose statements are calls within
	// the process); see insertRows.
	Unnest(types []string, rows [][]any) (from string, args []any, ok bool)
	// Inserted is a RETURNING expression that is true where an upsert
	// inserted its row and false where it updated one (PostgreSQL: xmax =
	// 0); "" where the backend has none, and upsert updates first.
	Inserted() string

	// ReserveEvents is the query that takes the next n event sequences of
	// an execution, up to max in all, and returns the last one: no row when
	// the execution is missing or would pass max. Concurrent appends must
	// get consecutive numbers (SQLite: the events' highest seq, read under
	// its one writer; PostgreSQL: the execution's event_seq counter, whose
	// row lock orders appends from every process).
	ReserveEvents(executionID string, n, max int64) (query string, args []any)
}
