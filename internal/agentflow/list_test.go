package agentflow_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func TestList(t *testing.T) {
	w := newWorld(t)
	r := w.node(t, newFake(), "n1").r
	var runs []string // oldest first
	for i := 0; i < 3; i++ {
		// Records of other kinds between the runs, more than a page of them:
		// A2E executions (one whose document looks like a run's descriptor),
		// capability runs. The list never sees them.
		for j := 0; j < 6; j++ {
			e := store.Execution{ID: fmt.Sprintf("other-%d-%d", i, j), AccountID: "alice", Kind: store.Kinds[j%2],
				Digest: "d", Document: []byte(`{"type":"operationUpdate"}`), Status: store.StatusQueued}
			if j == 0 {
				e.Document = []byte(store.AgentWorkflowPrefix + `"not a run"}`)
			}
			if _, _, err := w.db.CreateExecution(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		id, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "a"}`), "")
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, id)
	}
	if _, err := r.Start(ctx, "bob", decode(t, threeSteps), nil, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Cancel(ctx, "alice", runs[0]); err != nil {
		t.Fatal(err)
	}

	var got []string
	cursor, pages := "", 0
	for {
		page, next, err := r.List(ctx, "alice", agentflow.ListQuery{Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		// Pages are full until the last: 2, then 1.
		if want := []int{2, 1}[min(pages, 1)]; len(page) != want {
			t.Fatalf("page %d holds %d runs, want %d", pages, len(page), want)
		}
		for _, s := range page {
			if s.WorkflowID != "wf-1" || s.Name != "three" || s.Version != "1.0.0" || s.CreatedAt.IsZero() {
				t.Fatalf("summary %+v", s)
			}
			got = append(got, s.RunID)
		}
		if pages++; next == "" || pages > 10 {
			break
		}
		cursor = next
	}
	if pages != 2 {
		t.Fatalf("%d pages for 3 runs in pages of 2", pages)
	}
	if want := runs[2] + " " + runs[1] + " " + runs[0]; strings.Join(got, " ") != want {
		t.Fatalf("listed %v, want newest first %s", got, want)
	}

	page, _, err := r.List(ctx, "alice", agentflow.ListQuery{Status: []store.Status{store.StatusCancelled}})
	if err != nil || len(page) != 1 || page[0].RunID != runs[0] || page[0].Status != store.StatusCancelled || page[0].FinishedAt == nil {
		t.Fatalf("cancelled only: %+v %v", page, err)
	}
	page, next, err := r.List(ctx, "bob", agentflow.ListQuery{})
	if err != nil || len(page) != 1 || next != "" {
		t.Fatalf("bob's: %+v %q %v", page, next, err)
	}
	for _, id := range runs {
		if page[0].RunID == id {
			t.Fatal("bob sees alice's run")
		}
	}

	// A record of another kind is no run, whatever its document says.
	if _, err := r.Get(ctx, "alice", "other-0-0"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("get of an A2E execution: %v", err)
	}
	if _, err := r.Cancel(ctx, "alice", "other-0-1"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("cancel of a capability run: %v", err)
	}

	for name, q := range map[string]agentflow.ListQuery{
		"limit over the bound": {Limit: agentflow.MaxListLimit + 1},
		"negative limit":       {Limit: -1},
		"bad cursor":           {Cursor: "not-a-cursor"},
		"bad status":           {Status: []store.Status{"nearly"}},
	} {
		if _, _, err := r.List(ctx, "alice", q); fault.KindOf(err) != fault.Invalid {
			t.Errorf("%s: %v", name, err)
		}
	}
}
