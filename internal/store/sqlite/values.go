package sqlite

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

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

func timePtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// jsonText binds JSON to a TEXT column; empty is NULL.
func jsonText(v json.RawMessage) sql.NullString {
	if len(v) == 0 {
		return sql.NullString{}
	}
	return sql.NullString{String: string(v), Valid: true}
}

func rawJSON(v sql.NullString) json.RawMessage {
	if !v.Valid {
		return nil
	}
	return json.RawMessage(v.String)
}

func nullText(s string) sql.NullString {
	return sql.NullString{String: s, Valid: s != ""}
}

// Cursors of seq-ordered lists are the seq of the last row given, in decimal.

func seqCursor(seq int64) string { return strconv.FormatInt(seq, 10) }

// parseSeqCursor reads a cursor; "" is the start (0).
func parseSeqCursor(c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(c, 10, 64)
	if err != nil || v <= 0 {
		return 0, store.BadCursor()
	}
	return v, nil
}
