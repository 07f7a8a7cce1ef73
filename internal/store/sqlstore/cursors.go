package sqlstore

import (
	"strconv"

	"github.com/sluicehq/sluice/internal/store"
)

// A list ordered by id pages by the last id given; a list ordered by seq by
// the last seq given, in decimal.

// idPage reads a page's limit and the id its cursor is after.
func (s *Store) idPage(p store.Page) (limit int, after string, err error) {
	if limit, err = store.PageLimit(p.Limit); err != nil {
		return 0, "", err
	}
	if !s.b.Storable(p.Cursor) {
		return 0, "", store.BadCursor()
	}
	return limit, p.Cursor, nil
}

// nextPage cuts a list read with limit+1 rows to limit and gives the next
// page's cursor: the last id given, "" at the end.
func nextPage[T any](out []T, limit int, id func(T) string) ([]T, string) {
	if len(out) <= limit {
		return out, ""
	}
	out = out[:limit]
	return out, id(out[limit-1])
}

// seqCursor is the cursor after the row of seq.
func seqCursor(seq int64) string { return strconv.FormatInt(seq, 10) }

// parseSeqCursor reads a seq cursor; "" is the start (0).
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
