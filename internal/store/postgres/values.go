package postgres

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Times are timestamptz, which keeps microseconds, the precision of E2A
// timestamps; pgx sends a time.Time truncated to the microsecond, as the
// SQLite store does. Times read back are given in UTC.

func utc(t time.Time) time.Time { return t.UTC() }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// storable reports whether every s could be in a text column: valid UTF-8
// without NUL bytes. A lookup by a value that is not can match nothing, so it
// is answered without asking the database (which would refuse the value).
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}
