package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// kindDocs are documents of each kind, as their runners write them.
var kindDocs = map[string][]byte{
	store.KindA2E:           []byte(`{"type":"beginExecution","root":"a"}`),
	store.KindCapability:    []byte(store.CapabilityRunPrefix + `{"namespace":"ns","id":"cap"}}`),
	store.KindAgentWorkflow: []byte(store.AgentWorkflowPrefix + `"e30="}`),
}

func testExecutionKinds(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")

	// A given kind is kept, whatever the document looks like: an A2E
	// document that happens to start like a descriptor stays A2E.
	for i, k := range store.Kinds {
		e := mkExecution("given-"+k, "alice")
		e.Kind, e.ClientID = k, fmt.Sprintf("client-%d", i)
		e.Document = kindDocs[store.KindAgentWorkflow]
		got, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		if got.Kind != k {
			t.Fatalf("created %s as %q", k, got.Kind)
		}
		back, err := s.GetExecution(ctx, "alice", e.ID)
		must(t, err)
		byClient, err := s.FindExecutionByClientID(ctx, "alice", e.ClientID)
		must(t, err)
		again, created, err := s.CreateExecution(ctx, e) // the idempotent repeat reads the stored row
		must(t, err)
		if back.Kind != k || byClient.Kind != k || created || again.Kind != k {
			t.Fatalf("kind %s came back as get %q, by client id %q, repeat %q", k, back.Kind, byClient.Kind, again.Kind)
		}
	}

	// An empty kind is derived from the document, as rows written before
	// kinds existed were classified.
	for k, doc := range kindDocs {
		e := mkExecution("derived-"+k, "alice")
		e.Document = doc
		got, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		back, err := s.GetExecution(ctx, "alice", e.ID)
		must(t, err)
		if got.Kind != k || back.Kind != k || store.KindOfDocument(doc) != k {
			t.Fatalf("document of kind %s derived as %q, stored as %q", k, got.Kind, back.Kind)
		}
	}

	// Lists and the unfinished lists carry the kind.
	page, _, err := s.ListExecutions(ctx, "alice", store.ExecutionQuery{Page: store.Page{Limit: store.MaxPageSize}})
	must(t, err)
	var unfinished []store.Execution
	for _, k := range store.Kinds {
		some, _, err := s.ListUnfinished(ctx, k, store.Page{Limit: store.MaxPageSize})
		must(t, err)
		unfinished = append(unfinished, some...)
	}
	for _, list := range [][]store.Execution{page, unfinished} {
		if len(list) != 2*len(store.Kinds) {
			t.Fatalf("listed %d executions, want %d", len(list), 2*len(store.Kinds))
		}
		for _, e := range list {
			if want := e.ID[len("given-"):]; e.ID[:6] == "given-" && e.Kind != want {
				t.Fatalf("listed %s as %q", e.ID, e.Kind)
			}
			if !store.ValidKind(e.Kind) {
				t.Fatalf("listed %s with kind %q", e.ID, e.Kind)
			}
		}
	}

	// An unknown kind is refused, naming the field; nothing is stored.
	bad := mkExecution("bad-kind", "alice")
	bad.Kind = "a2x"
	_, _, err = s.CreateExecution(ctx, bad)
	wantKind(t, err, fault.Invalid, "unknown kind")
	if f := fault.From(err).Details["field"]; f != "kind" {
		t.Fatalf("unknown kind names field %v", f)
	}
	_, err = s.GetExecution(ctx, "alice", "bad-kind")
	wantKind(t, err, fault.NotFound, "a refused execution")
	_, _, err = s.ListExecutions(ctx, "alice", store.ExecutionQuery{Kinds: []string{"A2E"}})
	wantKind(t, err, fault.Invalid, "list of an unknown kind")
	if f := fault.From(err).Details["field"]; f != "kind" {
		t.Fatalf("list of an unknown kind names field %v", f)
	}
}

// testExecutionKindPaging lists one kind among interleaved others: every
// page but the last is full, in the same newest-first cursor order as the
// unfiltered list.
func testExecutionKindPaging(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	// 30 of alice's in an uneven pattern (12 a2e, 6 a2s, 12 agent
	// workflow), and bob's of every kind in between.
	pattern := []string{store.KindA2E, store.KindAgentWorkflow, store.KindCapability, store.KindA2E, store.KindAgentWorkflow}
	want := map[string][]string{} // kind -> ids, newest first
	for i := range 30 {
		k := pattern[i%len(pattern)]
		e := mkExecution(fmt.Sprintf("a-%02d", i), "alice")
		e.Kind, e.Document = k, kindDocs[k]
		_, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		if i%4 == 0 {
			must(t, s.UpdateExecution(ctx, "alice", e.ID, store.ExecutionUpdate{Status: store.StatusSuccess}))
		}
		want[k] = append([]string{e.ID}, want[k]...)
		o := mkExecution(fmt.Sprintf("b-%02d", i), "bob")
		o.Kind = store.Kinds[i%len(store.Kinds)]
		_, _, err = s.CreateExecution(ctx, o)
		must(t, err)
	}
	if len(want[store.KindA2E]) != 12 || len(want[store.KindCapability]) != 6 || len(want[store.KindAgentWorkflow]) != 12 {
		t.Fatalf("pattern gave %d/%d/%d", len(want[store.KindA2E]), len(want[store.KindCapability]), len(want[store.KindAgentWorkflow]))
	}
	list := func(q store.ExecutionQuery) (ids []string, sizes []int) {
		t.Helper()
		return pageThrough(t, s, "alice", q, func(e store.Execution) {
			if e.AccountID != "alice" || e.Kind != q.Kinds[0] {
				t.Fatalf("a list of %s gave %+v", q.Kinds[0], e)
			}
		})
	}
	for _, k := range store.Kinds {
		ids, sizes := list(store.ExecutionQuery{Kinds: []string{k}, Page: store.Page{Limit: 7}})
		if !slices.Equal(ids, want[k]) {
			t.Fatalf("%s: listed %v, want %v", k, ids, want[k])
		}
		for i, n := range sizes[:len(sizes)-1] {
			if n != 7 {
				t.Fatalf("%s: page %d of %v holds %d, want a full page", k, i, sizes, n)
			}
		}
		if last := sizes[len(sizes)-1]; last == 0 || last > 7 {
			t.Fatalf("%s: last page of %v holds %d", k, sizes, last)
		}
	}

	// Kind and status together: alice's finished A2E executions.
	var done []string
	for _, id := range want[store.KindA2E] {
		var i int
		fmt.Sscanf(id, "a-%d", &i)
		if i%4 == 0 {
			done = append(done, id)
		}
	}
	ids, _ := list(store.ExecutionQuery{Kinds: []string{store.KindA2E}, Status: []store.Status{store.StatusSuccess}, Page: store.Page{Limit: 2}})
	if len(done) == 0 || !slices.Equal(ids, done) {
		t.Fatalf("finished A2E executions %v, want %v", ids, done)
	}
}
