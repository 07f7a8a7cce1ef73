package sqlstore

import "context"

// Pipeliner is a Querier that sends many statements in one round trip
// (PostgreSQL's pipeline). A batch of rows then costs one round trip rather
// than one a row; without it (SQLite, whose statements are calls within the
// process) they run one after the other.
type Pipeliner interface {
	// ExecEach runs query once for each argument list, in order, and fails
	// with the first statement that fails.
	ExecEach(ctx context.Context, query string, args [][]any) error
	// QueryEach runs query (at most one row) once for each argument list
	// and gives scan each answer in order; it stops at scan's first error.
	QueryEach(ctx context.Context, query string, args [][]any, scan func(i int, row Row) error) error
}

// execEach runs query once for each argument list, pipelined where q can.
func execEach(ctx context.Context, q Querier, query string, args [][]any) error {
	if p, ok := q.(Pipeliner); ok {
		return p.ExecEach(ctx, query, args)
	}
	for _, a := range args {
		if _, err := q.Exec(ctx, query, a...); err != nil {
			return err
		}
	}
	return nil
}

// queryEach is execEach for a query whose one row scan reads.
func queryEach(ctx context.Context, q Querier, query string, args [][]any, scan func(i int, row Row) error) error {
	if p, ok := q.(Pipeliner); ok {
		return p.QueryEach(ctx, query, args, scan)
	}
	for i, a := range args {
		if err := scan(i, q.QueryRow(ctx, query, a...)); err != nil {
			return err
		}
	}
	return nil
}
