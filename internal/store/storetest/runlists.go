package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// testExecutionListsOfRuns checks the two filters the run API lists with
// (internal/runs): a list of kinds, and every account's records at once.
// Pages stay full and newest first, as in the account's own list.
func testExecutionListsOfRuns(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	var all, aliceA2SOrFlow []string // newest first
	for i := range 24 {
		acct := "alice"
		if i%3 == 2 {
			acct = "bob"
		}
		k := store.Kinds[i%len(store.Kinds)]
		if i%4 == 1 {
			k = store.KindAgentWorkflow
		}
		e := mkExecution(fmt.Sprintf("r-%02d", i), acct)
		e.Kind, e.Document = k, kindDocs[k]
		_, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		all = append([]string{e.ID}, all...)
		if acct == "alice" && k != store.KindA2E {
			aliceA2SOrFlow = append([]string{e.ID}, aliceA2SOrFlow...)
		}
	}
	list := func(account string, q store.ExecutionQuery) (ids []string, sizes []int) {
		t.Helper()
		return pageThrough(t, s, account, q, func(e store.Execution) {
			if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind) {
				t.Fatalf("a list of kinds %v gave %+v", q.Kinds, e)
			}
		})
	}
	full := func(what string, sizes []int, limit int) {
		t.Helper()
		for i, n := range sizes[:len(sizes)-1] {
			if n != limit {
				t.Fatalf("%s: page %d of %v holds %d, want a full page", what, i, sizes, n)
			}
		}
	}

	two := []string{store.KindCapability, store.KindAgentWorkflow}
	ids, sizes := list("alice", store.ExecutionQuery{Kinds: two, Page: store.Page{Limit: 3}})
	if len(aliceA2SOrFlow) < 4 || !slices.Equal(ids, aliceA2SOrFlow) {
		t.Fatalf("alice's capability and agent workflow runs: %v, want %v", ids, aliceA2SOrFlow)
	}
	full("two kinds", sizes, 3)

	// Every account's: the account given is not read.
	for _, acct := range []string{"alice", "nobody", ""} {
		ids, sizes = list(acct, store.ExecutionQuery{AllAccounts: true, Page: store.Page{Limit: 5}})
		if !slices.Equal(ids, all) {
			t.Fatalf("every account's executions (given %q): %v, want %v", acct, ids, all)
		}
		full("every account", sizes, 5)
	}
	ids, _ = list("", store.ExecutionQuery{AllAccounts: true, Kinds: []string{store.KindA2E}})
	for _, id := range ids {
		if !slices.Contains(all, id) {
			t.Fatalf("every account's A2E executions gave %s", id)
		}
	}
	if len(ids) == 0 {
		t.Fatal("every account's A2E executions: none")
	}

	for _, bad := range [][]string{{"a2x"}, {store.KindA2E, ""}} {
		_, _, err := s.ListExecutions(ctx, "alice", store.ExecutionQuery{Kinds: bad})
		wantKind(t, err, fault.Invalid, fmt.Sprintf("a list of kinds %q", bad))
	}
}

// pageThrough lists account's executions from q's first page to the last,
// checking each record listed: their ids in order, and each page's size.
func pageThrough(t *testing.T, s store.Store, account string, q store.ExecutionQuery, check func(store.Execution)) (ids []string, sizes []int) {
	t.Helper()
	for pages := 0; ; pages++ {
		if pages > 30 {
			t.Fatal("paging does not end")
		}
		page, next, err := s.ListExecutions(ctx, account, q)
		must(t, err)
		for _, e := range page {
			check(e)
			ids = append(ids, e.ID)
		}
		sizes = append(sizes, len(page))
		if next == "" {
			return ids, sizes
		}
		q.Cursor = next
	}
}
