package postgres

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/store"
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

// Cursors of seq-ordered lists are the seq of the last row given, in
// decimal, as in the SQLite store; cursors of id-ordered lists are the last
// id.

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

// idCursor checks an id cursor: any text, as ids are, but text the database
// can compare.
func idCursor(c string) (string, error) {
	if !storable(c) {
		return "", store.BadCursor()
	}
	return c, nil
}
