package sqlite_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// explain returns the opcodes SQLite compiles query to (EXPLAIN), on the
// database of a closed store, the placeholders bound to NULL.
func explain(t *testing.T, raw *sql.DB, query string) []string {
	t.Helper()
	args := make([]any, strings.Count(query, "?"))
	rows, err := raw.Query(`EXPLAIN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var ops []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, vals[1].(string))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ops
}

func closedStore(t *testing.T) *sql.DB {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw := rawDB(t, dir)
	t.Cleanup(func() { raw.Close() })
	return raw
}

// Creating an execution and changing its status build no temporary b-tree:
// the predicate of the partial index of unfinished runs, which SQLite
// evaluates on every such write, is equalities, not an IN list of three
// constants (which SQLite evaluates by building one).
func TestExecutionWritesBuildNoTemporaryTree(t *testing.T) {
	raw := closedStore(t)
	for name, q := range map[string]string{"insert": sqlstore.InsertExecution, "status change": sqlstore.UpdateExecutionStatus} {
		ops := explain(t, raw, q)
		if len(ops) == 0 {
			t.Fatalf("%s: no program", name)
		}
		for _, op := range ops {
			if op == "OpenEphemeral" {
				t.Fatalf("%s opens a temporary b-tree: %v", name, ops)
			}
		}
	}
}

// Recovery's read of a kind's unfinished runs is served by the partial
// index, whose predicate it names.
func TestUnfinishedRunsReadTheirIndex(t *testing.T) {
	got := queryPlan(t, closedStore(t), sqlstore.UnfinishedRuns, "a2e", 0, 10)
	if !strings.Contains(got, "USING INDEX executions_unfinished_kind") || strings.Contains(got, "TEMP B-TREE") {
		t.Fatalf("the plan: %s", got)
	}
}

// queryPlan is what EXPLAIN QUERY PLAN says of query, its steps joined by
// "; ".
func queryPlan(t *testing.T, raw *sql.DB, query string, args ...any) string {
	t.Helper()
	rows, err := raw.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
