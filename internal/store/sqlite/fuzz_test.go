package sqlite_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// FuzzCursors feeds arbitrary cursors (the one thing the store decodes from
// callers) to every paged list: each either pages or says Invalid, never
// panics or fails otherwise.
func FuzzCursors(f *testing.F) {
	for _, seed := range []string{"", "1", "42", "-1", "0", "9223372036854775808", "abc", "acct-1", "\x00", "1e3"} {
		f.Add(seed)
	}
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "a"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		p := store.Page{Cursor: cursor, Limit: 5}
		check := func(what string, err error) {
			if err != nil && fault.KindOf(err) != fault.Invalid {
				t.Fatalf("%s with cursor %q: %v", what, cursor, err)
			}
		}
		_, _, err := db.ListExecutions(ctx, "a", store.ExecutionQuery{Page: p})
		check("executions", err)
		_, _, err = db.ListUnfinished(ctx, store.KindA2E, p)
		check("unfinished", err)
		_, _, err = db.QueryAudit(ctx, store.AuditQuery{Page: p})
		check("audit", err)
		_, _, err = db.ListAccounts(ctx, p)
		check("accounts", err)
		_, _, err = db.ListCredentials(ctx, p)
		check("credentials", err)
	})
}
