package agentflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// A client id is the caller's key for one run of the account: Start again
// with it answers that run and starts nothing, before the run, while it is
// queued and after it finished; the same id for another workflow (or
// another kind of run) is a Conflict.
func TestStartIsIdempotentByClientID(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	n := w.node(t, inv, "n1")
	input := json.RawMessage(`{"text": "river"}`)
	first, err := n.r.Start(ctx, "alice", decode(t, threeSteps), input, "order-7")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := n.r.Start(ctx, "alice", decode(t, threeSteps), input, "order-7"); err != nil || again != first {
		t.Fatalf("again: %q %v, want %q", again, err, first)
	}
	// Another account's key is its own.
	if bobs, err := n.r.Start(ctx, "bob", decode(t, threeSteps), input, "order-7"); err != nil || bobs == first {
		t.Fatalf("bob's: %q %v", bobs, err)
	}
	other := decode(t, strings.Replace(threeSteps, `"name": "three"`, `"name": "other"`, 1))
	if _, err := n.r.Start(ctx, "alice", other, input, "order-7"); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("another workflow with the key: %v", err)
	}
	if _, _, err := w.db.CreateExecution(ctx, store.Execution{ID: "plain", AccountID: "alice", Digest: "d", ClientID: "order-8",
		Document: []byte(`{"type":"operationUpdate"}`), Status: store.StatusQueued}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.r.Start(ctx, "alice", decode(t, threeSteps), input, "order-8"); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("an A2E execution's key: %v", err)
	}
	runs, _, err := n.r.List(ctx, "alice", agentflow.ListQuery{})
	if err != nil || len(runs) != 1 || runs[0].RunID != first {
		t.Fatalf("alice's runs: %+v %v", runs, err)
	}

	n.start(t)
	if v := waitFinal(t, n.r, "alice", first); v.Status != store.StatusSuccess {
		t.Fatalf("run %+v", v)
	}
	if again, err := n.r.Start(ctx, "alice", decode(t, threeSteps), input, "order-7"); err != nil || again != first {
		t.Fatalf("after it finished: %q %v", again, err)
	}
	if v, _ := n.r.Get(ctx, "alice", first); v.Status != store.StatusSuccess {
		t.Fatalf("a repeated Start changed the run: %+v", v)
	}
	for _, step := range []string{"shout", "measure", "report"} {
		if got := inv.count(agentflow.TaskID(first, step)); got != 1 {
			t.Fatalf("step %s invoked %d times", step, got)
		}
	}
}
