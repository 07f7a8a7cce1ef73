package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// The shapes every table repeats: read one row by its key, read a list,
// page by id, change one row. what names the record in messages ("account":
// `account "x" not found`, "the account cannot be read").

// readOne scans the one row query (its only argument key) gives into
// targets; no row, or a key the database cannot hold, is NotFound.
func (s *Store) readOne(ctx context.Context, what, key, query string, targets ...any) error {
	if !s.b.Storable(key) {
		return notFound(what, key)
	}
	err := s.b.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, query, key).Scan(targets...)
	})
	if s.b.IsNoRows(err) {
		return notFound(what, key)
	}
	if err != nil {
		return s.b.ReadErr("the "+what, err)
	}
	return nil
}

// collect appends to out[:0] each row of query as scan reads it (out
// decides whether no rows is nil or empty); what names the rows in the
// error ("the agents").
func collect[T any](ctx context.Context, s *Store, what string, out []T, scan func(Row) (T, error), query string, args ...any) ([]T, error) {
	err := s.b.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.b.ReadErr(what, err)
	}
	return out, nil
}

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

// writeOne runs one statement in a write of its own; when it changes no
// row, the write fails with missing.
func (s *Store) writeOne(ctx context.Context, what string, missing *fault.Error, query string, args ...any) error {
	err := s.b.Write(ctx, func(tx Querier) error {
		n, err := tx.Exec(ctx, query, args...)
		if err == nil && n == 0 {
			return missing
		}
		return err
	})
	return s.b.WriteErr(what, err)
}
