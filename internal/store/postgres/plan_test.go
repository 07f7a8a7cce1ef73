package postgres_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// Recovery's read of a kind's unfinished runs can be served by the partial
// index, whose predicate it names (sequential scans off, as a large table
// would make them).
func TestUnfinishedRunsReadTheirIndex(t *testing.T) {
	db, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.NewDatabase(t), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `EXPLAIN `+sqlstore.Numbered(sqlstore.UnfinishedRuns), "a2e", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(plan, "\n"); !strings.Contains(got, "executions_unfinished_kind") {
		t.Fatalf("the plan:\n%s", got)
	}
}
