package agentflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func TestRunSucceeds(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	r := w.runner(inv, nil)
	runID := startThreeSteps(t, r)
	work(t, r, "w1")
	v := waitFinal(t, r, "alice", runID)
	if v.Status != store.StatusSuccess || v.WorkflowID != "wf-1" || v.Name != "three" || v.Version != "1.0.0" {
		t.Fatalf("run %+v", v)
	}
	jsonEq(t, v.Output, `{"line": "RIVER has 5 letters", "n": 5, "first": "RIVER", "fixed": true}`)
	jsonEq(t, v.Outputs["shout"], `{"text": "RIVER"}`)
	jsonEq(t, v.Outputs["measure"], `{"n": 5, "items": ["RIVER"]}`)
	for _, s := range v.Steps {
		if s.Status != agentflow.StepCompleted {
			t.Fatalf("step %+v", s)
		}
	}
	if got := []string{v.Steps[0].StepID, v.Steps[1].StepID, v.Steps[2].StepID}; strings.Join(got, ",") != "shout,measure,report" {
		t.Fatalf("order %v", got)
	}
	for _, step := range []string{"shout", "measure", "report"} {
		task := agentflow.TaskID(runID, step)
		if n := inv.count(task); n != 1 {
			t.Fatalf("%s invoked %d times", task, n)
		}
		if c := inv.corr[task]; c != runID {
			t.Fatalf("correlation id %q, want the run id", c)
		}
	}
	if in := inv.input(agentflow.TaskID(runID, "shout")); in != `{"text":"river"}` {
		t.Fatalf("first input %s", in)
	}
	if v.StartedAt == nil || v.FinishedAt == nil {
		t.Fatalf("times %+v", v)
	}
	// The run is an execution of the account, of its own kind, with the
	// descriptor document.
	e, err := w.db.GetExecution(ctx, "alice", runID)
	if err != nil || e.Kind != store.KindAgentWorkflow || store.KindOfDocument(e.Document) != store.KindAgentWorkflow {
		t.Fatalf("%v %s %s", err, e.Kind, e.Document)
	}
}

func TestRunFailsAtAStep(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	r := w.runner(inv, nil)
	doc := strings.Replace(threeSteps, `"agent_name": "count"`, `"agent_name": "broken"`, 1)
	runID, err := r.Start(ctx, "alice", decode(t, doc), json.RawMessage(`{"text": "river"}`))
	if err != nil {
		t.Fatal(err)
	}
	work(t, r, "w1")
	v := waitFinal(t, r, "alice", runID)
	if v.Status != store.StatusFailed || string(v.Output) != "null" {
		t.Fatalf("run %+v", v)
	}
	want := []string{agentflow.StepCompleted, agentflow.StepFailed, agentflow.StepPending}
	for i, s := range v.Steps {
		if s.Status != want[i] {
			t.Fatalf("step %d %+v, want %s", i, s, want[i])
		}
	}
	if len(v.Errors) != 1 || !strings.Contains(v.Errors[0].Message, `step "measure" (agent "broken")`) ||
		!strings.Contains(v.Errors[0].Message, "bad things") || v.Errors[0].Details["step"] != "measure" {
		t.Fatalf("errors %+v", v.Errors)
	}
	jsonEq(t, v.Outputs["shout"], `{"text": "RIVER"}`)
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Fatalf("the step after the failure ran %d times", n)
	}
}

// A reference that finds nothing in an output fails the run at that step,
// naming the step and the mapping key, without calling its agent.
func TestRunFailsOnAMissingValue(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	r := w.runner(inv, nil)
	doc := strings.Replace(threeSteps, `${shout.output.text}"}`, `${shout.output.missing}"}`, 1)
	runID, err := r.Start(ctx, "alice", decode(t, doc), json.RawMessage(`{"text": "river"}`))
	if err != nil {
		t.Fatal(err)
	}
	work(t, r, "w1")
	v := waitFinal(t, r, "alice", runID)
	if v.Status != store.StatusFailed || len(v.Errors) != 1 {
		t.Fatalf("run %+v", v)
	}
	msg := v.Errors[0].Message
	if !strings.Contains(msg, "steps.measure.input_mapping.text") || !strings.Contains(msg, "${shout.output.missing} is not there") {
		t.Fatalf("message %q", msg)
	}
	if n := inv.count(agentflow.TaskID(runID, "measure")); n != 0 {
		t.Fatalf("agent called %d times", n)
	}
}

// A worker killed between steps: the next worker resumes after the last
// completed step and never calls an agent again for a recorded step.
func TestRunResumesAfterACrash(t *testing.T) {
	cases := []struct {
		name string
		when func(op, id string) bool
		// the crash happens while the step "shout" is handled; its calls:
		shoutCalls int
	}{
		{name: "before the next step is enqueued", shoutCalls: 1,
			when: func(op, id string) bool { return op == "enqueue" && strings.HasSuffix(id, "/measure") }},
		{name: "before the ack", shoutCalls: 1,
			when: func(op, id string) bool { return op == "ack" && strings.HasSuffix(id, "/shout") }},
		{name: "after the last step, before its ack", shoutCalls: 1,
			when: func(op, id string) bool { return op == "ack" && strings.HasSuffix(id, "/report") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			inv := newFake()
			runID := startThreeSteps(t, w.runner(inv, nil))
			// First process: dies at the crash point.
			wctx, cancel := context.WithCancel(ctx)
			cq := &crashQueue{Queue: w.q, when: c.when, cancel: cancel}
			r1 := w.runner(inv, cq)
			if err := r1.Work(wctx, "w1"); err != nil {
				t.Fatal(err)
			}
			if !cq.crashed {
				t.Fatal("the crash point was never reached")
			}
			// Second process: takes over the dead one's leases at start-up.
			if _, err := w.q.ReleaseOthers(ctx, "w2"); err != nil {
				t.Fatal(err)
			}
			r2 := w.runner(inv, nil)
			work(t, r2, "w2")
			v := waitFinal(t, r2, "alice", runID)
			if v.Status != store.StatusSuccess {
				t.Fatalf("run %+v", v)
			}
			jsonEq(t, v.Output, `{"line": "RIVER has 5 letters", "n": 5, "first": "RIVER", "fixed": true}`)
			for step, want := range map[string]int{"shout": c.shoutCalls, "measure": 1, "report": 1} {
				if n := inv.count(agentflow.TaskID(runID, step)); n != want {
					t.Fatalf("step %s invoked %d times, want %d", step, n, want)
				}
			}
		})
	}
}

// A worker killed while the agent works (before the output is recorded):
// the step runs again with the same task_id, the agent's idempotency key.
func TestRunRepeatsAnUnrecordedStepWithTheSameTaskID(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	runID := startThreeSteps(t, w.runner(inv, nil))
	wctx, cancel := context.WithCancel(ctx)
	inv.before = func(_ context.Context, taskID string) error {
		if strings.HasSuffix(taskID, "/measure") && inv.count(taskID) == 1 {
			cancel() // the process dies while the agent works
			return context.Canceled
		}
		return nil
	}
	if err := w.runner(inv, w.q).Work(wctx, "w1"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.q.ReleaseOthers(ctx, "w2"); err != nil {
		t.Fatal(err)
	}
	r2 := w.runner(inv, nil)
	work(t, r2, "w2")
	if v := waitFinal(t, r2, "alice", runID); v.Status != store.StatusSuccess {
		t.Fatalf("run %+v", v)
	}
	if n := inv.count(agentflow.TaskID(runID, "shout")); n != 1 {
		t.Fatalf("shout invoked %d times", n)
	}
	if n := inv.count(agentflow.TaskID(runID, "measure")); n != 2 {
		t.Fatalf("measure invoked %d times, want 2 (same task id)", n)
	}
}

func TestStartRefuses(t *testing.T) {
	w := newWorld(t)
	r := w.runner(newFake(), nil)
	known := map[string]bool{"upper": true, "count": true, "echo": true}
	r.Agents = func(_ context.Context, name string) (bool, error) { return known[name], nil }
	cycle := &agenthttp.Workflow{WorkflowID: "w", StartStep: "a", Steps: map[string]*agenthttp.WorkflowStep{
		"a": {ID: "a", AgentName: "upper", NextStep: "b"}, "b": {ID: "b", AgentName: "upper", NextStep: "a"}}}
	cases := []struct {
		name  string
		wf    *agenthttp.Workflow
		input string
		field string
		msg   string
	}{
		{name: "unknown agent", wf: decode(t, strings.Replace(threeSteps, `"echo"`, `"ghost"`, 1)), input: `{}`,
			field: "steps.report.agent_name", msg: `agent "ghost", which is not registered`},
		{name: "cycle", wf: cycle, input: `{}`, field: "steps.b.next_step", msg: "a -> b -> a form a cycle"},
		{name: "input not an object", wf: decode(t, threeSteps), input: `[1]`, field: "input", msg: "must be a JSON object"},
		{name: "input not JSON", wf: decode(t, threeSteps), input: `{`, field: "input", msg: "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Start(ctx, "alice", c.wf, json.RawMessage(c.input))
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.Invalid || fe.Details["field"] != c.field || !strings.Contains(fe.Message, c.msg) {
				t.Fatalf("got %#v", err)
			}
		})
	}
	outage := fault.New(fault.Unavailable, "registry down")
	r.Agents = func(context.Context, string) (bool, error) { return false, outage }
	if _, err := r.Start(ctx, "alice", decode(t, threeSteps), nil); !errors.Is(err, outage) {
		t.Fatalf("an outage is not a bad workflow: %v", err)
	}
	execs, _, err := w.db.ListExecutions(ctx, "alice", store.ExecutionQuery{})
	if err != nil || len(execs) != 0 {
		t.Fatalf("refused runs stored: %v %v", execs, err)
	}
}

func TestGetIsScopedToTheAccount(t *testing.T) {
	w := newWorld(t)
	r := w.runner(newFake(), nil)
	runID, err := r.Start(ctx, "alice", decode(t, threeSteps), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Get(ctx, "alice", runID)
	if err != nil || v.Status != store.StatusQueued || v.Steps[0].Status != agentflow.StepRunning || v.Steps[1].Status != agentflow.StepPending {
		t.Fatalf("%+v %v", v, err)
	}
	if _, err := r.Get(ctx, "bob", runID); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("another account's run: %v", err)
	}
	// An execution that is not an agent workflow run is not one.
	if _, _, err := w.db.CreateExecution(ctx, store.Execution{ID: "plain", AccountID: "alice", Digest: "d",
		Document: []byte(`{"type":"operationUpdate"}`), Status: store.StatusQueued}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "alice", "plain"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("an A2E execution: %v", err)
	}
}

// Recover puts back the next step of a run whose queue item was lost.
func TestRecover(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	// The first step's item is "lost": the enqueue claims success.
	lost := &dropQueue{crashQueue{Queue: w.q}}
	runID, err := w.runner(inv, lost).Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "abc"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := w.runner(inv, nil)
	n, err := r.Recover(ctx)
	if err != nil || n != 1 {
		t.Fatalf("recovered %d: %v", n, err)
	}
	if n, err := r.Recover(ctx); err != nil || n != 1 {
		t.Fatalf("twice: %d %v", n, err) // the item still queued is not doubled
	}
	work(t, r, "w1")
	if v := waitFinal(t, r, "alice", runID); v.Status != store.StatusSuccess {
		t.Fatalf("%+v", v)
	}
	if n := inv.count(agentflow.TaskID(runID, "shout")); n != 1 {
		t.Fatalf("shout invoked %d times", n)
	}
	if n, err := r.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("after the end: %d %v", n, err)
	}
}

type dropQueue struct{ crashQueue }

func (d *dropQueue) Enqueue(context.Context, queue.Message) (bool, error) { return true, nil }

// Several workers share the runs; every step runs exactly once.
func TestManyWorkers(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	r := w.runner(inv, nil)
	var runs []string
	for i := 0; i < 6; i++ {
		id, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "abc"}`))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, id)
	}
	for _, owner := range []string{"w1", "w2", "w3"} {
		work(t, r, owner)
	}
	for _, id := range runs {
		if v := waitFinal(t, r, "alice", id); v.Status != store.StatusSuccess {
			t.Fatalf("%+v", v)
		}
		for _, step := range []string{"shout", "measure", "report"} {
			if n := inv.count(agentflow.TaskID(id, step)); n != 1 {
				t.Fatalf("%s/%s invoked %d times", id, step, n)
			}
		}
	}
}
