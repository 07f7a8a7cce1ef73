package sqlite

import (
	"database/sql"
	"encoding/json"
	"time"
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
