package execution_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/store"
)

// One account's long execution gives its worker to another account's
// execution between two of its steps: with one worker, alice's execution of
// four short Waits (too short to park) is running when carol submits a
// zero-length one, and carol's finishes while alice's still has steps to
// run. Before executions gave way, carol's waited for all four of alice's
// steps: it finished after alice's.
func TestLongExecutionGivesWayBetweenSteps(t *testing.T) {
	clk := newGatedClock()
	n := startNode(t, t.TempDir(), clk, 1)
	doc := []byte(`{"type":"operationUpdate","operationId":"w1","operation":{"Wait":{"duration":500}}}
{"type":"operationUpdate","operationId":"w2","operation":{"Wait":{"duration":500}}}
{"type":"operationUpdate","operationId":"w3","operation":{"Wait":{"duration":500}}}
{"type":"operationUpdate","operationId":"w4","operation":{"Wait":{"duration":500}}}
{"type":"beginExecution","executionId":"long","operationOrder":["w1","w2","w3","w4"]}
`)
	out, err := n.m.Execute(t.Context(), principal("alice"), execution.Request{Document: doc, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	long := out.View.ExecutionID
	n.await(t, "alice", long, store.StatusRunning)
	quick := n.submit(t, "carol", 0)

	// Move the clock one Wait at a time until carol's is done. At most one
	// move happens between carol's finishing and the look below, and alice's
	// needs at least two more (its second Wait runs only after carol's).
	deadline := time.Now().Add(20 * time.Second)
	for n.status(t, "carol", quick) != store.StatusSuccess {
		if time.Now().After(deadline) {
			t.Fatalf("carol's execution is %s, alice's %s: never done", n.status(t, "carol", quick), n.status(t, "alice", long))
		}
		clk.Advance(500 * time.Millisecond)
		time.Sleep(20 * time.Millisecond)
	}
	if st := n.status(t, "alice", long); st.Final() {
		t.Fatalf("alice's execution was %s before carol's finished: it held the worker to its end", st)
	}

	// Alice's goes on where it stopped and finishes, each Wait once.
	for n.status(t, "alice", long) != store.StatusSuccess {
		if time.Now().After(deadline) {
			t.Fatalf("alice's execution is %s, never done", n.status(t, "alice", long))
		}
		clk.Advance(500 * time.Millisecond)
		time.Sleep(20 * time.Millisecond)
	}
	v, err := n.m.Get(t.Context(), principal("alice"), long)
	if err != nil {
		t.Fatal(err)
	}
	var results map[string]any
	if err := json.Unmarshal(v.Results, &results); err != nil || len(results) != 4 {
		t.Fatalf("alice's execution has %d results (%v), want 4: %s", len(results), err, v.Results)
	}
}
