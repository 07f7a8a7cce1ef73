package storetest

import (
	"testing"

	"github.com/sluicehq/sluice/internal/store"
)

// backfillDocs are executions stored as A2E whose documents say another kind
// (or none): what migration 0008's backfill must classify.
var backfillDocs = map[string]struct{ doc, kind string }{
	"ex-a2e":   {`{"type":"beginExecution"}`, store.KindA2E},
	"ex-a2s":   {store.CapabilityRunPrefix + `{"id":"x"}}`, store.KindCapability},
	"ex-agent": {store.AgentWorkflowPrefix + `"e30="}`, store.KindAgentWorkflow},
	"ex-short": {`{"a2s`, store.KindA2E}, // shorter than a prefix
}

// SeedKindBackfill stores the executions CheckKindBackfill looks at, for a
// store's test that then takes its schema back to before the kind column
// and opens it again.
func SeedKindBackfill(t *testing.T, st store.Store) {
	t.Helper()
	if _, err := st.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}
	for id, d := range backfillDocs {
		e := store.Execution{ID: id, AccountID: "alice", Kind: store.KindA2E, Digest: "d-" + id, Document: []byte(d.doc), Status: store.StatusQueued}
		if _, _, err := st.CreateExecution(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
}

// CheckKindBackfill checks that the seeded rows got the kind their
// document says, and that a list by kind finds them.
func CheckKindBackfill(t *testing.T, st store.Store) {
	t.Helper()
	for id, d := range backfillDocs {
		e, err := st.GetExecution(ctx, "alice", id)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != d.kind || store.KindOfDocument(e.Document) != d.kind {
			t.Errorf("%s: backfilled as %q, want %q", id, e.Kind, d.kind)
		}
	}
	list, _, err := st.ListExecutions(ctx, "alice", store.ExecutionQuery{Kinds: []string{store.KindCapability}})
	if err != nil || len(list) != 1 || list[0].ID != "ex-a2s" {
		t.Fatalf("capability runs after the migration: %v %v", list, err)
	}
}

// KindBackfill seeds the rows CheckKindBackfill looks at in the store open
// gives, closes it, has back take the schema back to version 7 (before
// migration 0008) and opens it again: the rows there must have got their
// kinds. It returns the store opened again, closed when t ends.
func KindBackfill(t *testing.T, open func() store.Store, back func()) store.Store {
	t.Helper()
	st := open()
	SeedKindBackfill(t, st)
	st.Close()
	back()
	st = open()
	t.Cleanup(func() { st.Close() })
	CheckKindBackfill(t, st)
	return st
}

// ExecAll runs each statement with exec and fails t on the first that fails.
func ExecAll(t *testing.T, exec func(stmt string) error, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if err := exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
