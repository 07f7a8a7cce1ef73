package agentflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func TestRunSucceeds(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	n := w.started(t, inv, "n1")
	runID := startThreeSteps(t, n.r)
	v := waitFinal(t, n.r, "alice", runID)
	if v.Status != store.StatusSuccess || v.WorkflowID != "wf-1" || v.Name != "three" || v.Version != "1.0.0" {
		t.Fatalf("run %+v", v)
	}
	jsonEq(t, v.Output, threeStepsOutput)
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
		if c := inv.correlation(task); c != runID {
			t.Fatalf("correlation id %q, want the run id", c)
		}
	}
	if in := inv.input(agentflow.TaskID(runID, "shout")); in != `{"text":"river"}` {
		t.Fatalf("first input %s", in)
	}
	if v.StartedAt == nil || v.FinishedAt == nil {
		t.Fatalf("times %+v", v)
	}
	// The run is an asynchronous execution of the account, of its own kind,
	// with the descriptor document.
	e, err := w.db.GetExecution(ctx, "alice", runID)
	if err != nil || e.Kind != store.KindAgentWorkflow || store.KindOfDocument(e.Document) != store.KindAgentWorkflow || !e.Async {
		t.Fatalf("%v %s %v %s", err, e.Kind, e.Async, e.Document)
	}
}

func TestRunFailsAtAStep(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	n := w.started(t, inv, "n1")
	doc := strings.Replace(threeSteps, `"agent_name": "count"`, `"agent_name": "broken"`, 1)
	runID, err := n.r.Start(ctx, "alice", decode(t, doc), json.RawMessage(`{"text": "river"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	v := waitFinal(t, n.r, "alice", runID)
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
		!strings.Contains(v.Errors[0].Message, "bad things") || v.Errors[0].Details["step"] != "measure" ||
		v.Errors[0].Details["agent"] != "broken" {
		t.Fatalf("errors %+v", v.Errors)
	}
	jsonEq(t, v.Outputs["shout"], `{"text": "RIVER"}`)
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Fatalf("the step after the failure ran %d times", n)
	}
	// The agent's failure is final: the invoker retried as the agent says,
	// the run service does not call it again.
	if n := inv.count(agentflow.TaskID(runID, "measure")); n != 1 {
		t.Fatalf("the failing step invoked %d times", n)
	}
}

// A reference that finds nothing in an output fails the run at that step,
// naming the step and the mapping key, without calling its agent.
func TestRunFailsOnAMissingValue(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	n := w.started(t, inv, "n1")
	doc := strings.Replace(threeSteps, `${shout.output.text}"}`, `${shout.output.missing}"}`, 1)
	runID, err := n.r.Start(ctx, "alice", decode(t, doc), json.RawMessage(`{"text": "river"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	v := waitFinal(t, n.r, "alice", runID)
	if v.Status != store.StatusFailed || len(v.Errors) != 1 {
		t.Fatalf("run %+v", v)
	}
	msg := v.Errors[0].Message
	if !strings.Contains(msg, "steps.measure.input_mapping.text") || !strings.Contains(msg, "${shout.output.missing} is not there") {
		t.Fatalf("message %q", msg)
	}
	if v.Steps[1].Status != agentflow.StepFailed {
		t.Fatalf("steps %+v", v.Steps)
	}
	if n := inv.count(agentflow.TaskID(runID, "measure")); n != 0 {
		t.Fatalf("agent called %d times", n)
	}
}

// holdUntilCrash makes the fake agent of step block, the first time it is
// called, until its context ends (the process dies): started is closed when
// it is called.
func holdUntilCrash(inv *fakeInvoker, step string) (started chan struct{}) {
	started = make(chan struct{})
	inv.before = func(ctx context.Context, taskID string) error {
		if !strings.HasSuffix(taskID, "/"+step) || inv.count(taskID) != 1 {
			return nil
		}
		close(started)
		<-ctx.Done()
		return context.Cause(ctx)
	}
	return started
}

// A process killed while an agent works (before its output is recorded):
// the next process resumes the run after its last recorded step, never calls
// an agent again for a recorded step, and repeats the unrecorded one with
// the same task_id, the agent's idempotency key.
func TestRunRepeatsAnUnrecordedStepWithTheSameTaskID(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	started := holdUntilCrash(inv, "measure")
	first := w.started(t, inv, "n1")
	runID := startThreeSteps(t, first.r)
	<-started
	w.resumeIn(t, first, w.node(t, inv, "n2"), runID)
	for step, want := range map[string]int{"shout": 1, "measure": 2, "report": 1} {
		if n := inv.count(agentflow.TaskID(runID, step)); n != want {
			t.Fatalf("step %s invoked %d times, want %d", step, n, want)
		}
	}
	// The repeated call had the same input: it is the same task.
	if in := inv.input(agentflow.TaskID(runID, "measure")); in != `{"text":"RIVER"}` {
		t.Fatalf("measure's input %s", in)
	}
}

// A process killed after the last step was recorded, before the run's
// outcome was stored: the next process finishes the run from its checkpoint
// and calls no agent again.
func TestRunResumesAfterACrash(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	dead := dying(w.db, func(method string, u store.ExecutionUpdate) bool {
		return method == "update" && u.Status.Final()
	})
	first := w.started(t, inv, "n1", func(c *execution.Config) { c.Store = dead })
	runID := startThreeSteps(t, first.r)
	dead.waitCrashed(t)
	w.resumeIn(t, first, w.node(t, inv, "n2"), runID)
	for _, step := range []string{"shout", "measure", "report"} {
		if n := inv.count(agentflow.TaskID(runID, step)); n != 1 {
			t.Fatalf("step %s invoked %d times, want 1", step, n)
		}
	}
}

func TestStartRefuses(t *testing.T) {
	w := newWorld(t)
	r := w.node(t, newFake(), "n1").r
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
		// Wrong references: each names the step and the reference.
		{name: "reference to a later step", wf: remap(t, "measure", "text", `"${report.output.text}"`),
			input: `{}`, field: "steps.measure.input_mapping.text", msg: `step "measure": ${report.output.text} refers to step "report", which runs after it`},
		{name: "reference to no step", wf: remap(t, "measure", "text", `"${shuot.output.text}"`),
			input: `{}`, field: "steps.measure.input_mapping.text", msg: `step "measure": ${shuot.output.text} refers to step "shuot", which is not in steps`},
		{name: "reference in an object", wf: remap(t, "report", "fixed", `{"a": [1, "x ${measure.output.n}"]}`),
			input: `{}`, field: "steps.report.input_mapping.fixed", msg: `step "report": ${measure.output.n} at input_mapping.fixed.a[1] is not rendered`},
		{name: "broken reference in an array", wf: remap(t, "report", "fixed", `["${measure.outptu}"]`),
			input: `{}`, field: "steps.report.input_mapping.fixed", msg: `step "report": "${measure.outptu}" at input_mapping.fixed[0] is not rendered`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Start(ctx, "alice", c.wf, json.RawMessage(c.input), "")
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.Invalid || fe.Details["field"] != c.field || !strings.Contains(fe.Message, c.msg) {
				t.Fatalf("got %#v", err)
			}
		})
	}
	outage := fault.New(fault.Unavailable, "registry down")
	r.Agents = func(context.Context, string) (bool, error) { return false, outage }
	if _, err := r.Start(ctx, "alice", decode(t, threeSteps), nil, ""); !errors.Is(err, outage) {
		t.Fatalf("an outage is not a bad workflow: %v", err)
	}
	execs, _, err := w.db.ListExecutions(ctx, "alice", store.ExecutionQuery{})
	if err != nil || len(execs) != 0 {
		t.Fatalf("refused runs stored: %v %v", execs, err)
	}
}

// remap is threeSteps with one mapping value of a step replaced, as a
// client of the Go API may build it (not through DecodeWorkflow).
func remap(t *testing.T, step, key, raw string) *agenthttp.Workflow {
	t.Helper()
	wf := decode(t, threeSteps)
	wf.Steps[step].InputMapping[key] = json.RawMessage(raw)
	return wf
}

func TestGetIsScopedToTheAccount(t *testing.T) {
	w := newWorld(t)
	r := w.node(t, newFake(), "n1").r
	runID, err := r.Start(ctx, "alice", decode(t, threeSteps), nil, "")
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

// A run whose queue item was lost (the queue claimed it was stored) is put
// back by the run service's start, once however many processes start.
func TestRecover(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	lost := w.node(t, inv, "n0", func(c *execution.Config) { c.Queue = &dropQueue{c.Queue} })
	runID, err := lost.r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "abc"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := lost.r.Get(ctx, "alice", runID); err != nil || v.Status != store.StatusQueued {
		t.Fatalf("%+v %v", v, err)
	}
	// Two processes start: both recover the run, which runs once.
	a, b := w.node(t, inv, "n1"), w.node(t, inv, "n2")
	a.start(t)
	b.start(t)
	if v := waitFinal(t, a.r, "alice", runID); v.Status != store.StatusSuccess {
		t.Fatalf("%+v", v)
	}
	for _, step := range []string{"shout", "measure", "report"} {
		if n := inv.count(agentflow.TaskID(runID, step)); n != 1 {
			t.Fatalf("%s invoked %d times", step, n)
		}
	}
}

// dropQueue loses every item it is given and says it kept it.
type dropQueue struct{ queue.Queue }

func (dropQueue) Enqueue(context.Context, queue.Message) (bool, error) { return true, nil }

// Several processes share the runs of one store and queue (gateways on one
// database); every step runs exactly once, whichever process started it.
func TestManyWorkers(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	nodes := []*node{w.started(t, inv, "n1"), w.started(t, inv, "n2")}
	var runs []string
	for i := 0; i < 6; i++ {
		id, err := nodes[i%2].r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "abc"}`), "")
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, id)
	}
	for i, id := range runs {
		if v := waitFinal(t, nodes[(i+1)%2].r, "alice", id); v.Status != store.StatusSuccess {
			t.Fatalf("%+v", v)
		}
		for _, step := range []string{"shout", "measure", "report"} {
			if n := inv.count(agentflow.TaskID(id, step)); n != 1 {
				t.Fatalf("%s/%s invoked %d times", id, step, n)
			}
		}
	}
}
