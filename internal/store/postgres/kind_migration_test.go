package postgres_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// Rows written before migration 0008 get the kind their document says:
// the schema is taken back to version 7 (column, its index and the version
// row dropped), and opening it again applies 0008 to the rows there.
func TestKindMigrationBackfills(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"ex-a2e":   `{"type":"beginExecution"}`,
		"ex-a2s":   store.CapabilityRunPrefix + `{"id":"x"}}`,
		"ex-agent": store.AgentWorkflowPrefix + `"e30="}`,
		"ex-short": `{"a2s`, // shorter than a prefix
	}
	for id, doc := range docs {
		e := store.Execution{ID: id, AccountID: "alice", Kind: store.KindA2E, Digest: "d-" + id, Document: []byte(doc), Status: store.StatusQueued}
		if _, _, err := db.CreateExecution(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range []string{`ALTER TABLE executions DROP COLUMN kind`, `DELETE FROM schema_migrations WHERE version = 8`} {
		if _, err := db.Pool().Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	db, err = postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string]string{"ex-a2e": store.KindA2E, "ex-a2s": store.KindCapability, "ex-agent": store.KindAgentWorkflow, "ex-short": store.KindA2E}
	for id, k := range want {
		e, err := db.GetExecution(ctx, "alice", id)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != k || store.KindOfDocument(e.Document) != k {
			t.Errorf("%s: backfilled as %q, want %q", id, e.Kind, k)
		}
	}
	list, _, err := db.ListExecutions(ctx, "alice", store.ExecutionQuery{Kind: store.KindCapability})
	if err != nil || len(list) != 1 || list[0].ID != "ex-a2s" {
		t.Fatalf("capability runs after the migration: %v %v", list, err)
	}
	// The database refuses a kind the code does not know, too.
	if _, err := db.Pool().Exec(ctx, `UPDATE executions SET kind = 'other' WHERE id = 'ex-a2e'`); err == nil {
		t.Fatal("the kind column took an unknown kind")
	}
}
