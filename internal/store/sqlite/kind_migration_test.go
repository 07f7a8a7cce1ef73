package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// Rows written before migration 0008 get the kind their document says:
// the schema is taken back to version 7 (0018's index and 0017's table, 0016's column and 0015's index dropped, 0014's and
// 0013's columns dropped, 0010's column and index dropped, 0009's index
// swapped back, 0008's column and index dropped, their version rows
// deleted), and opening it again applies 0008 on to the rows there.
func TestKindMigrationBackfills(t *testing.T) {
	dir := t.TempDir()
	open := func() store.Store {
		db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	storetest.KindBackfill(t, open, func() {
		raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		storetest.ExecAll(t, func(stmt string) error { _, err := raw.Exec(stmt); return err },
			`DROP INDEX accounts_name`,                                                    // 0018
			`DROP TABLE a2a_push_configs`,                                                 // 0017
			`ALTER TABLE mcp_servers DROP COLUMN auth`,                                    // 0016
			`DROP INDEX executions_account_status`,                                        // 0015
			`ALTER TABLE credentials DROP COLUMN hosts`,                                   // 0014
			`DROP INDEX queue_items_group_due`, `ALTER TABLE queue_items DROP COLUMN grp`, // 0013
			`DROP INDEX queue_items_expiry`, `ALTER TABLE queue_items DROP COLUMN expires_at`, // 0010
			`DROP INDEX executions_unfinished_kind`,
			`CREATE INDEX executions_unfinished ON executions (seq) WHERE status IN ('queued', 'running', 'waiting')`,
			`DROP INDEX executions_account_kind`, `ALTER TABLE executions DROP COLUMN kind`,
			`DELETE FROM schema_migrations WHERE version >= 8`)
	})
}
