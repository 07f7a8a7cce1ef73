package sqlite

import (
	"database/sql"
	"fmt"
	"time"
)

// dialect is where SQLite differs for the shared table code
// (sqlstore.Dialect). Its one writer serialises every write, so the locks
// PostgreSQL needs are empty here, and so are the batch forms: a statement
// is a call within the process.
type dialect struct{}

func (dialect) IsUnique(err error) bool               { return isUnique(err) }
func (dialect) IsForeignKey(err error) bool           { return isForeignKey(err) }
func (dialect) IsNoRows(err error) bool               { return isNoRows(err) }
func (dialect) ReadErr(what string, err error) error  { return readErr(what, err) }
func (dialect) WriteErr(what string, err error) error { return writeErr(what, err) }

func (dialect) Time(t time.Time) any {
	return micros(t)
}

func (dialect) NullTime(t *time.Time) any { return nullMicros(t) }

func (dialect) ScanTime(dst *time.Time) any { return microsTime{dst} }

func (dialect) ScanNullTime(dst **time.Time) any { return nullMicrosTime{dst} }

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

// Storable: SQLite stores any bytes as text.
func (dialect) Storable(...string) bool { return true }

func (dialect) Greatest() string { return "MAX" }

// RowLock, KeyShareLock and SerialLock: none, under the one writer.
func (dialect) RowLock() string          { return "" }
func (dialect) KeyShareLock() string     { return "" }
func (dialect) SerialLock(string) string { return "" }

// Unnest: none; a statement a row is as fast.
func (dialect) Unnest([]string, [][]any) (string, []any, bool) { return "", nil, false }

// Inserted: none; the one writer makes update-then-insert exact.
func (dialect) Inserted() string { return "" }

// ReserveEvents reads the highest seq: the one writer makes it the last.
func (dialect) ReserveEvents(id string, n, max int64) (string, []any) {
	return `SELECT m + ? FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM events WHERE execution_id = ?)
		WHERE m + ? <= ? AND EXISTS (SELECT 1 FROM executions WHERE id = ?)`, []any{n, id, n, max, id}
}

// Times are stored as INTEGER microseconds since the Unix epoch, UTC: exact,
// ordered, and the same precision as the E2A timestamps.

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}
