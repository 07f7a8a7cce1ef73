package sqlstore

import (
	"context"
	"strings"

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
		var err error
		out, err = queryAll(ctx, q, out[:0], query, args, scan)
		return err
	})
	if err != nil {
		return nil, s.b.ReadErr(what, err)
	}
	return out, nil
}

// queryAll appends to out each row of query on q as scan reads it.
func queryAll[T any](ctx context.Context, q Querier, out []T, query string, args []any, scan func(Row) (T, error)) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanOne reads a row of one column.
func scanOne[T any](r Row) (T, error) {
	var v T
	err := r.Scan(&v)
	return v, err
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

// filter is a WHERE clause of the conditions in use and their arguments:
// a statement that names only those is planned for its own index.
type filter struct {
	conds []string
	args  []any
}

// add appends cond (with its ? placeholders) and its arguments.
func (f *filter) add(cond string, args ...any) {
	f.conds, f.args = append(f.conds, cond), append(f.args, args...)
}

// in appends "col IN (...)" of vals.
func in[T ~string](f *filter, col string, vals []T) {
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = string(v)
	}
	f.add(col+` IN (?`+repeatPlaceholders(len(vals)-1)+`)`, args...)
}

// where is " WHERE " and the conditions, or "" when there are none.
func (f *filter) where() string {
	if len(f.conds) == 0 {
		return ""
	}
	return ` WHERE ` + strings.Join(f.conds, ` AND `)
}
