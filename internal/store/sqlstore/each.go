package sqlstore

import (
	"context"
	"strings"
)

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

// insertRows runs "INSERT INTO "+into+" "+source+" "+conflict for rows,
// each of len(types) values of those SQL types: one statement over the
// dialect's Unnest where it has one, else one VALUES statement a row
// (pipelined where q can). In the one statement, ON CONFLICT may touch a
// row once: rows holds no two of one key, and in key order, so concurrent
// writers lock shared rows in one order.
func (s *Store) insertRows(ctx context.Context, q Querier, into string, types []string, conflict string, rows [][]any) error {
	if from, args, ok := s.b.Unnest(types, rows); ok {
		_, err := q.Exec(ctx, "INSERT INTO "+into+" "+from+" "+conflict, args...)
		return err
	}
	values := "VALUES (?" + repeatPlaceholders(len(types)-1) + ")"
	return execEach(ctx, q, "INSERT INTO "+into+" "+values+" "+conflict, rows)
}

// repeatPlaceholders is n more placeholders, each after a comma.
func repeatPlaceholders(n int) string { return strings.Repeat(", ?", n) }

// Copier is a write Querier that streams rows into a table (PostgreSQL's
// COPY): a large append never becomes one huge statement.
type Copier interface {
	CopyRows(ctx context.Context, table string, cols []string, rows [][]any) error
}

// CopyAbove is the append size from which rows go in by a Copier rather
// than one INSERT a row: COPY streams, but costs a round trip more.
const CopyAbove = 4

// appendRows inserts rows into table's cols, in order: by the Copier where
// q is one and there are more than CopyAbove; pipelined, one INSERT a row,
// where q is a Pipeliner; else (SQLite) in INSERTs of several rows each.
func appendRows(ctx context.Context, q Querier, table string, cols []string, rows [][]any) error {
	if c, ok := q.(Copier); ok && len(rows) > CopyAbove {
		return c.CopyRows(ctx, table, cols, rows)
	}
	insert := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	tuple := "(?" + repeatPlaceholders(len(cols)-1) + ")"
	if _, ok := q.(Pipeliner); ok {
		return execEach(ctx, q, insert+tuple, rows)
	}
	return insertChunks(ctx, q, insert, tuple, rows)
}

// rowChunks are the row counts of one multi-row INSERT, largest first. A
// statement a row costs the database/sql and driver round of a call, its
// argument conversion and a statement reset each; one statement of many
// rows pays them once (BenchmarkAuditBatch in the SQLite backend). Few
// fixed sizes keep the prepared statements few: a batch of n rows takes at
// most n/64 + 3*3 statements.
var rowChunks = []int{64, 16, 4, 1}

// insertChunks inserts rows, in order, in multi-row INSERTs of rowChunks'
// sizes. insert ends in "VALUES "; tuple is one row's "(?, ...)".
func insertChunks(ctx context.Context, q Querier, insert, tuple string, rows [][]any) error {
	width := strings.Count(tuple, "?")
	for _, n := range rowChunks {
		if len(rows) < n {
			continue
		}
		query := insert + tuple + strings.Repeat(", "+tuple, n-1)
		args := make([]any, 0, n*width)
		for len(rows) >= n {
			args = args[:0]
			for _, r := range rows[:n] {
				args = append(args, r...)
			}
			if _, err := q.Exec(ctx, query, args...); err != nil {
				return err
			}
			rows = rows[n:]
		}
	}
	return nil
}
