package postgres_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// FuzzCursors feeds arbitrary cursors (the one thing the store decodes from
// callers) to every paged list, and arbitrary ids to look-ups: each either
// answers or says Invalid (NotFound for a look-up), never panics or fails
// otherwise. Bytes PostgreSQL cannot hold as text (NUL, invalid UTF-8) are
// the interesting ones here.
func FuzzCursors(f *testing.F) {
	for _, seed := range []string{"", "1", "42", "-1", "0", "9223372036854775808", "abc", "acct-1", "\x00", "1e3", "\xff\xfe", "a\x00b"} {
		f.Add(seed)
	}
	db, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.NewDatabase(f)})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "a"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := store.Page{Cursor: s, Limit: 5}
		check := func(what string, err error, also fault.Kind) {
			if err != nil && fault.KindOf(err) != fault.Invalid && fault.KindOf(err) != also {
				t.Fatalf("%s with %q: %v", what, s, err)
			}
		}
		_, _, err := db.ListExecutions(ctx, "a", store.ExecutionQuery{Page: p})
		check("executions", err, fault.Invalid)
		_, _, err = db.ListUnfinished(ctx, store.KindA2E, p)
		check("unfinished", err, fault.Invalid)
		_, _, err = db.QueryAudit(ctx, store.AuditQuery{Page: p, AccountID: s, Method: s})
		check("audit", err, fault.Invalid)
		_, _, err = db.ListAccounts(ctx, p)
		check("accounts", err, fault.Invalid)
		_, _, err = db.ListCredentials(ctx, p)
		check("credentials", err, fault.Invalid)
		_, err = db.GetAccount(ctx, s)
		check("account", err, fault.NotFound)
		_, err = db.GetExecution(ctx, "a", s)
		check("execution", err, fault.NotFound)
		_, err = db.FindExecutionByClientID(ctx, "a", s)
		check("client id", err, fault.NotFound)
		_, _, err = db.GetAPIKey(ctx, s)
		check("key", err, fault.NotFound)
		_, err = db.LoadCheckpoint(ctx, s)
		check("checkpoint", err, fault.NotFound)
		_, err = db.ListEvents(ctx, s, 0, 0)
		check("events", err, fault.NotFound)
		_, _, err = db.GetKV(ctx, "a", s)
		check("kv", err, fault.NotFound)
	})
}
