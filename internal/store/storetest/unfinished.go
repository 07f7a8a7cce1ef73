package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// testUnfinishedByKind recovers one kind among interleaved others, as each
// runner does at start-up: only that kind's unfinished records of every
// account, oldest first, every page but the last full (the filter is in
// the query, not applied to a page afterwards). A kind is required.
func testUnfinishedByKind(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	want := map[string][]string{} // kind -> unfinished ids, oldest first
	for i := range 40 {
		k := store.Kinds[(i*i+i/3)%len(store.Kinds)] // uneven runs of each kind
		acct := []string{"alice", "bob"}[i%2]
		e := mkExecution(fmt.Sprintf("u-%02d", i), acct)
		e.Kind, e.Document = k, kindDocs[k]
		_, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		switch i % 5 {
		case 0:
			must(t, s.UpdateExecution(ctx, acct, e.ID, store.ExecutionUpdate{Status: store.StatusSuccess}))
			continue
		case 1:
			must(t, s.UpdateExecution(ctx, acct, e.ID, store.ExecutionUpdate{Status: store.StatusRunning}))
		case 2:
			must(t, s.UpdateExecution(ctx, acct, e.ID, store.ExecutionUpdate{Status: store.StatusWaiting}))
		case 3:
			must(t, s.UpdateExecution(ctx, acct, e.ID, store.ExecutionUpdate{Status: store.StatusCancelled}))
			continue
		}
		want[k] = append(want[k], e.ID)
	}
	for _, k := range store.Kinds {
		if len(want[k]) < 4 {
			t.Fatalf("pattern left %d unfinished of %s, too few to page", len(want[k]), k)
		}
		var ids []string
		var sizes []int
		p := store.Page{Limit: 3}
		for pages := 0; ; pages++ {
			if pages > 40 {
				t.Fatalf("%s: paging does not end", k)
			}
			page, next, err := s.ListUnfinished(ctx, k, p)
			must(t, err)
			for _, e := range page {
				if e.Kind != k || e.Status.Final() || len(e.Document) == 0 {
					t.Fatalf("unfinished of %s gave %s (%s, %s, %d document bytes)", k, e.ID, e.Kind, e.Status, len(e.Document))
				}
				ids = append(ids, e.ID)
			}
			sizes = append(sizes, len(page))
			if next == "" {
				break
			}
			p.Cursor = next
		}
		if !slices.Equal(ids, want[k]) {
			t.Fatalf("unfinished of %s: %v, want %v", k, ids, want[k])
		}
		for i, n := range sizes[:len(sizes)-1] {
			if n != 3 {
				t.Fatalf("%s: page %d of %v holds %d, want a full page", k, i, sizes, n)
			}
		}
	}

	for _, bad := range []string{"", "A2E", "a2x"} {
		_, _, err := s.ListUnfinished(ctx, bad, store.Page{})
		wantKind(t, err, fault.Invalid, fmt.Sprintf("unfinished of kind %q", bad))
		if f := fault.From(err).Details["field"]; f != "kind" {
			t.Fatalf("unfinished of kind %q names field %v", bad, f)
		}
	}
	_, _, err := s.ListUnfinished(ctx, store.KindA2E, store.Page{Limit: store.MaxPageSize + 1})
	wantKind(t, err, fault.Invalid, "unfinished page over the limit")
}
