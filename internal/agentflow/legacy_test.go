package agentflow_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// oldRun stores alice's run of threeSteps on "river" as the code before the
// run service left it in flight: its record (asynchronous, running), its
// checkpoint in the old format with the outputs of the steps done, and the
// queue item of its next step on the old topic.
func oldRun(t *testing.T, w *world, outputs map[string]string) string {
	t.Helper()
	wf, err := agenthttp.EncodeWorkflow(decode(t, threeSteps))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(map[string]json.RawMessage{"agent_workflow": wf})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(doc)
	id := ids.New(ids.AgentWorkflow)
	if _, _, err := w.db.CreateExecution(ctx, store.Execution{ID: id, AccountID: "alice", Kind: store.KindAgentWorkflow,
		Digest: "agentflow:" + hex.EncodeToString(sum[:]), Document: doc, Input: json.RawMessage(`{"text":"river"}`),
		Status: store.StatusQueued, Async: true}); err != nil {
		t.Fatal(err)
	}
	if err := w.db.UpdateExecution(ctx, "alice", id, store.ExecutionUpdate{Status: store.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	cp := struct {
		Completed []string                   `json:"completed"`
		Outputs   map[string]json.RawMessage `json:"outputs"`
	}{Completed: []string{}, Outputs: map[string]json.RawMessage{}}
	for _, step := range []string{"shout", "measure", "report"} {
		if out, ok := outputs[step]; ok {
			cp.Completed = append(cp.Completed, step)
			cp.Outputs[step] = json.RawMessage(out)
		}
	}
	raw, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.db.SaveCheckpoint(ctx, id, raw); err != nil {
		t.Fatal(err)
	}
	if _, err := w.q.Enqueue(ctx, queue.Message{Topic: agentflow.LegacyTopic, ID: id + "/next", Payload: []byte(id)}); err != nil {
		t.Fatal(err)
	}
	return id
}

// A run in flight when the server was upgraded resumes, in the run service,
// after the last step its old checkpoint records: no agent is called again
// for a recorded step, and later steps read the recorded outputs.
func TestOldCheckpointResumes(t *testing.T) {
	shout, measure := `{"text":"RIVER"}`, `{"n":5,"items":["RIVER"]}`
	cases := []struct {
		name    string
		done    map[string]string
		states  string // before it resumes
		invoked map[string]int
	}{
		{name: "after its first step", done: map[string]string{"shout": shout},
			states:  "shout=completed measure=running report=pending",
			invoked: map[string]int{"shout": 0, "measure": 1, "report": 1}},
		{name: "after two steps", done: map[string]string{"shout": shout, "measure": measure},
			states:  "shout=completed measure=completed report=running",
			invoked: map[string]int{"shout": 0, "measure": 0, "report": 1}},
		{name: "before its first step", done: map[string]string{},
			states:  "shout=running measure=pending report=pending",
			invoked: map[string]int{"shout": 1, "measure": 1, "report": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			inv := newFake()
			runID := oldRun(t, w, c.done)
			n := w.node(t, inv, "n1")
			// Before the upgraded process starts, the run reads as it stands.
			v, err := n.r.Get(ctx, "alice", runID)
			if err != nil || v.Status != store.StatusRunning || stepStates(v) != c.states {
				t.Fatalf("before: %+v %s %v", v, stepStates(v), err)
			}
			n.start(t)
			if dropped, err := agentflow.Drain(ctx, w.q, "n1"); err != nil || dropped != 1 {
				t.Fatalf("drained %d: %v", dropped, err)
			}
			v = waitFinal(t, n.r, "alice", runID)
			if v.Status != store.StatusSuccess {
				t.Fatalf("run %+v", v)
			}
			jsonEq(t, v.Output, threeStepsOutput)
			jsonEq(t, v.Outputs["shout"], shout)
			jsonEq(t, v.Outputs["measure"], measure)
			for step, want := range c.invoked {
				if got := inv.count(agentflow.TaskID(runID, step)); got != want {
					t.Fatalf("step %s invoked %d times, want %d", step, got, want)
				}
			}
		})
	}
}

// Drain empties the old topic and leaves every other one as it is.
func TestDrain(t *testing.T) {
	w := newWorld(t)
	for _, id := range []string{"awf-1/shout", "awf-2/measure", "awf-3/report"} {
		if _, err := w.q.Enqueue(ctx, queue.Message{Topic: agentflow.LegacyTopic, ID: id, Payload: []byte("alice")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.q.Enqueue(ctx, queue.Message{Topic: "elsewhere", ID: "keep", Payload: []byte("alice")}); err != nil {
		t.Fatal(err)
	}
	if n, err := agentflow.Drain(ctx, w.q, "n1"); err != nil || n != 3 {
		t.Fatalf("drained %d: %v", n, err)
	}
	if n, err := agentflow.Drain(ctx, w.q, "n1"); err != nil || n != 0 {
		t.Fatalf("drained again %d: %v", n, err)
	}
	if items, err := w.q.Lease(ctx, agentflow.LegacyTopic, "n2", 10, time.Minute); err != nil || len(items) != 0 {
		t.Fatalf("left on the old topic: %+v %v", items, err)
	}
	if items, err := w.q.Lease(ctx, "elsewhere", "n2", 10, time.Minute); err != nil || len(items) != 1 || items[0].ID != "keep" {
		t.Fatalf("another topic: %+v %v", items, err)
	}
}

// A run resumed from the old format has the budget of any asynchronous run
// of the run service (Config.AsyncBudget), not the engine's default for a
// run that names none: its old record stored no budget.
func TestOldCheckpointResumesWithTheAsyncBudget(t *testing.T) {
	w := newWorld(t)
	runID := oldRun(t, w, map[string]string{"shout": `{"text":"RIVER"}`})
	n := w.started(t, newFake(), "n1", func(c *execution.Config) { c.AsyncBudget = 2 * time.Hour })
	waitFinal(t, n.r, "alice", runID)
	raw, err := w.db.LoadCheckpoint(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	var cp struct {
		BudgetMs int64 `json:"budgetMs"`
	}
	if err := json.Unmarshal(raw, &cp); err != nil || cp.BudgetMs != (2*time.Hour).Milliseconds() {
		t.Fatalf("budget %d ms, want %d: %v", cp.BudgetMs, (2 * time.Hour).Milliseconds(), err)
	}
}
