package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// TestAccountNamesMigration: names that repeat before migration 0018 keep
// the oldest id's as it is and get the others' ids appended, so the unique
// index builds and no account is lost; empty names may repeat.
func TestAccountNamesMigration(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []store.Account{{ID: "acct-a", Name: "ops"}, {ID: "acct-b", Name: "b"}, {ID: "acct-c", Name: "c"}, {ID: "acct-d"}, {ID: "acct-e"}} {
		if _, err := db.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	storetest.ExecAll(t, func(stmt string) error { _, err := raw.Exec(stmt); return err },
		`DROP INDEX accounts_name`,
		`UPDATE accounts SET name = 'ops' WHERE id IN ('acct-b', 'acct-c')`,
		`DELETE FROM schema_migrations WHERE version >= 18`)
	raw.Close()

	db, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range map[string]string{"acct-a": "ops", "acct-b": "ops (acct-b)", "acct-c": "ops (acct-c)", "acct-d": "", "acct-e": ""} {
		a, err := db.GetAccount(ctx, id)
		if err != nil || a.Name != want {
			t.Errorf("%s: %q %v, want %q", id, a.Name, err, want)
		}
	}
	if _, err := db.CreateAccount(ctx, store.Account{ID: "acct-f", Name: "ops"}); err == nil {
		t.Fatal("a repeated name after the migration")
	}
}
