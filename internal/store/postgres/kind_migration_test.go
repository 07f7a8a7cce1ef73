package postgres_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// Rows written before migration 0008 get the kind their document says:
// the schema is taken back to version 7 (the columns of 0008 and 0010
// dropped with the indexes on them, 0018's index and 0017's table, 0016's column and 0015's index dropped, 0001's unfinished
// index made again, the version rows from 0008 on deleted), and opening it
// again applies them to the rows there.
func TestKindMigrationBackfills(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	exec := func(db *postgres.DB) func(string) error {
		return func(stmt string) error { _, err := db.Pool().Exec(ctx, stmt); return err }
	}
	db := storetest.KindBackfill(t, func() store.Store { return open() }, func() {
		db := open()
		defer db.Close()
		storetest.ExecAll(t, exec(db),
			`DROP INDEX accounts_name`,                       // 0018
			`DROP TABLE a2a_push_configs`,                    // 0017
			`ALTER TABLE mcp_servers DROP COLUMN auth`,       // 0016
			`DROP INDEX executions_account_status`,           // 0015
			`ALTER TABLE credentials DROP COLUMN hosts`,      // 0014
			`ALTER TABLE queue_items DROP COLUMN grp`,        // 0013, with its index
			`ALTER TABLE queue_items DROP COLUMN expires_at`, // 0010, with its index
			`ALTER TABLE executions DROP COLUMN kind`,
			`CREATE INDEX executions_unfinished ON executions (seq) WHERE status IN ('queued', 'running', 'waiting')`,
			`DELETE FROM schema_migrations WHERE version >= 8`)
	}).(*postgres.DB)
	// The database refuses a kind the code does not know, too.
	if exec(db)(`UPDATE executions SET kind = 'other' WHERE id = 'ex-a2e'`) == nil {
		t.Fatal("the kind column took an unknown kind")
	}
}
