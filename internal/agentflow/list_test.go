package agentflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func TestList(t *testing.T) {
	w := newWorld(t)
	r := w.runner(newFake(), nil)
	var runs []string // oldest first
	for i := 0; i < 3; i++ {
		// A2E executions between the runs: the list skips them.
		if _, _, err := w.db.CreateExecution(ctx, store.Execution{ID: "plain-" + string(rune('a'+i)), AccountID: "alice",
			Digest: "d", Document: []byte(`{"type":"operationUpdate"}`), Status: store.StatusQueued}); err != nil {
			t.Fatal(err)
		}
		id, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "a"}`))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, id)
	}
	if _, err := r.Start(ctx, "bob", decode(t, threeSteps), nil); err != nil {
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
		if len(page) > 2 {
			t.Fatalf("page of %d", len(page))
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
