package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/fault"
)

// The shapes every table repeats: read one row by its key, read a list,
// change one row. what names the record in messages ("account":
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
