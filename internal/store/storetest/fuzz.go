package storetest

import (
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// FuzzCursors feeds arbitrary cursors (the one thing the store decodes from
// callers) to every paged list of st, and arbitrary ids to look-ups: each
// either answers or says Invalid (NotFound for a look-up), never panics or
// fails otherwise. Bytes PostgreSQL cannot hold as text (NUL, invalid UTF-8)
// are the interesting ones there; SQLite stores any. st is closed when f
// ends.
func FuzzCursors(f *testing.F, st store.Store) {
	f.Cleanup(func() { st.Close() })
	for _, seed := range []string{"", "1", "42", "-1", "0", "9223372036854775808", "abc", "acct-1", "\x00", "1e3", "\xff\xfe", "a\x00b"} {
		f.Add(seed)
	}
	if _, err := st.CreateAccount(ctx, store.Account{ID: "a"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := store.Page{Cursor: s, Limit: 5}
		check := func(what string, err error, also fault.Kind) {
			if err != nil && fault.KindOf(err) != fault.Invalid && fault.KindOf(err) != also {
				t.Fatalf("%s with %q: %v", what, s, err)
			}
		}
		_, _, err := st.ListExecutions(ctx, "a", store.ExecutionQuery{Page: p})
		check("executions", err, fault.Invalid)
		_, _, err = st.ListUnfinished(ctx, store.KindA2E, p)
		check("unfinished", err, fault.Invalid)
		_, _, err = st.QueryAudit(ctx, store.AuditQuery{Page: p, AccountID: s, Method: s})
		check("audit", err, fault.Invalid)
		_, _, err = st.ListAccounts(ctx, p)
		check("accounts", err, fault.Invalid)
		_, _, err = st.ListCredentials(ctx, p)
		check("credentials", err, fault.Invalid)
		_, err = st.GetAccount(ctx, s)
		check("account", err, fault.NotFound)
		_, err = st.GetExecution(ctx, "a", s)
		check("execution", err, fault.NotFound)
		_, err = st.FindExecutionByClientID(ctx, "a", s)
		check("client id", err, fault.NotFound)
		_, _, err = st.GetAPIKey(ctx, s)
		check("key", err, fault.NotFound)
		_, err = st.LoadCheckpoint(ctx, s)
		check("checkpoint", err, fault.NotFound)
		_, err = st.ListEvents(ctx, s, 0, 0)
		check("events", err, fault.NotFound)
		_, _, err = st.GetKV(ctx, "a", s)
		check("kv", err, fault.NotFound)
	})
}
