package agentflow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func stepStates(v *agentflow.Run) string {
	var s []string
	for _, st := range v.Steps {
		s = append(s, st.StepID+"="+st.Status)
	}
	return strings.Join(s, " ")
}

// holdAt makes the fake agent of step block when it is called: started is
// closed then, and the call ends when release is closed (or, when
// honourCtx, when its context ends).
func holdAt(inv *fakeInvoker, step string, honourCtx bool) (started, release chan struct{}) {
	started, release = make(chan struct{}), make(chan struct{})
	inv.before = func(ctx context.Context, taskID string) error {
		if !strings.HasSuffix(taskID, "/"+step) {
			return nil
		}
		close(started)
		if honourCtx {
			select {
			case <-ctx.Done():
				return fault.New(fault.Unavailable, "agent call cancelled").WithCause(ctx.Err())
			case <-release:
			}
			return nil
		}
		<-release
		return nil
	}
	return started, release
}

func TestCancelAQueuedRun(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	n := w.node(t, inv, "n1")
	runID := startThreeSteps(t, n.r)
	v, err := n.r.Cancel(ctx, "alice", runID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != store.StatusCancelled || v.FinishedAt == nil || len(v.Outputs) != 0 ||
		stepStates(v) != "shout=cancelled measure=cancelled report=cancelled" {
		t.Fatalf("cancelled run %+v %s", v, stepStates(v))
	}
	// Its queue item is dropped by the worker: a run started after it (the
	// queue is first in, first out for one account) finishes, and the
	// cancelled one never reached an agent.
	later, err := n.r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "x"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	n.start(t)
	if v := waitFinal(t, n.r, "alice", later); v.Status != store.StatusSuccess {
		t.Fatalf("later run %+v", v)
	}
	if n := inv.count(agentflow.TaskID(runID, "shout")); n != 0 {
		t.Fatalf("a cancelled run's step invoked %d times", n)
	}
	if v, _ := n.r.Get(ctx, "alice", runID); v.Status != store.StatusCancelled {
		t.Fatalf("after the worker: %+v", v)
	}
}

// A step in flight in the process that cancels is stopped at once (that
// process looks at no record: SharedPoll 0); the run stays cancelled with
// the completed step's output.
func TestCancelStopsAStepInThisProcess(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	n := w.node(t, inv, "n1").withMonitor(rec.monitor).start(t)
	started, _ := holdAt(inv, "measure", true)
	runID := startThreeSteps(t, n.r)
	<-started
	v, err := n.r.Cancel(ctx, "alice", runID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != store.StatusCancelled || stepStates(v) != "shout=completed measure=cancelled report=cancelled" {
		t.Fatalf("cancel answered %+v %s", v, stepStates(v))
	}
	m := rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
	if md := meta(t, m); md["cancelled"] != true || md["code"] != "cancelled" {
		t.Fatalf("report %v", md)
	}
	wantSeq(t, rec.seq(runID), "shout:RUNNING", "shout:COMPLETED", "measure:RUNNING", "measure:FAILED")
	v, err = n.r.Get(ctx, "alice", runID)
	if err != nil || v.Status != store.StatusCancelled || stepStates(v) != "shout=completed measure=cancelled report=cancelled" {
		t.Fatalf("run %+v %s %v", v, stepStates(v), err)
	}
	jsonEq(t, v.Outputs["shout"], `{"text": "RIVER"}`)
	if _, has := v.Outputs["measure"]; has || string(v.Output) != "null" || len(v.Errors) != 0 {
		t.Fatalf("run %+v", v)
	}
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Fatalf("the step after the cancel ran %d times", n)
	}
}

// A cancel made through another process (another Manager on the same store)
// stops the step at its worker's next look at the record (SharedPoll).
func TestCancelFromAnotherProcess(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	worker := w.node(t, inv, "worker", sharedPoll(20*time.Millisecond)).withMonitor(rec.monitor).start(t)
	started, _ := holdAt(inv, "measure", true)
	runID := startThreeSteps(t, worker.r)
	<-started
	gateway := w.node(t, newFake(), "gateway", sharedPoll(20*time.Millisecond))
	if _, err := gateway.r.Cancel(ctx, "alice", runID); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
	v, err := gateway.r.Get(ctx, "alice", runID)
	if err != nil || v.Status != store.StatusCancelled || stepStates(v) != "shout=completed measure=cancelled report=cancelled" {
		t.Fatalf("run %+v %s %v", v, stepStates(v), err)
	}
	jsonEq(t, v.Outputs["shout"], `{"text": "RIVER"}`)
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Fatalf("the step after the cancel ran %d times", n)
	}
}

// An agent that answers after the cancel reached its worker (it ignored
// the end of its call's context): the answer is discarded and the run
// stays cancelled.
func TestCancelDiscardsALateResult(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	worker := w.node(t, inv, "worker", sharedPoll(20*time.Millisecond)).withMonitor(rec.monitor).start(t)
	started, noticed, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	inv.before = func(ctx context.Context, taskID string) error {
		if !strings.HasSuffix(taskID, "/measure") {
			return nil
		}
		close(started)
		<-ctx.Done()
		close(noticed)
		<-release // the agent goes on, and answers "measure" successfully
		return nil
	}
	runID := startThreeSteps(t, worker.r)
	<-started
	if _, err := w.node(t, newFake(), "gateway").r.Cancel(ctx, "alice", runID); err != nil {
		t.Fatal(err)
	}
	<-noticed
	close(release)
	rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
	if _, done := rec.find(runID, "measure", agenthttp.StepCompleted); done {
		t.Fatalf("a discarded step reported completed: %v", rec.seq(runID))
	}
	v, err := worker.r.Get(ctx, "alice", runID)
	if err != nil || v.Status != store.StatusCancelled || stepStates(v) != "shout=completed measure=cancelled report=cancelled" {
		t.Fatalf("run %+v %s %v", v, stepStates(v), err)
	}
	if _, has := v.Outputs["measure"]; has {
		t.Fatalf("the late output was kept: %+v", v.Outputs)
	}
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Fatalf("the step after the cancel ran %d times", n)
	}
}

func TestCancelRefuses(t *testing.T) {
	w := newWorld(t)
	n := w.node(t, newFake(), "n1")
	r := n.r
	queued, err := r.Start(ctx, "alice", decode(t, threeSteps), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.db.CreateExecution(ctx, store.Execution{ID: "plain", AccountID: "alice", Digest: "d",
		Document: []byte(`{"type":"operationUpdate"}`), Status: store.StatusQueued}); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ account, id string }{
		"unknown id":            {"alice", "awf-000000000000000000000000"},
		"another account's run": {"bob", queued},
		"an A2E execution":      {"alice", "plain"},
		"an empty id":           {"alice", ""},
	} {
		if _, err := r.Cancel(ctx, c.account, c.id); fault.KindOf(err) != fault.NotFound {
			t.Errorf("%s: %v", name, err)
		}
	}
	if v, _ := r.Get(ctx, "alice", queued); v.Status != store.StatusQueued {
		t.Fatalf("bob's attempt changed alice's run: %+v", v)
	}
	if e, _ := w.db.GetExecution(ctx, "alice", "plain"); e.Status != store.StatusQueued {
		t.Fatalf("the A2E execution was changed: %+v", e)
	}
	if _, err := r.Cancel(ctx, "alice", queued); err != nil {
		t.Fatal(err)
	}
	_, err = r.Cancel(ctx, "alice", queued)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Conflict || fe.Details["status"] != "cancelled" ||
		!strings.Contains(fe.Message, "already cancelled") {
		t.Fatalf("twice: %#v", err)
	}
	// A finished run.
	n.start(t)
	done, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "a"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	waitFinal(t, r, "alice", done)
	_, err = r.Cancel(ctx, "alice", done)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Conflict || fe.Details["status"] != "success" ||
		!strings.Contains(fe.Message, "already success") {
		t.Fatalf("finished: %#v", err)
	}
	if v, _ := r.Get(ctx, "alice", done); v.Status != store.StatusSuccess {
		t.Fatalf("a refused cancel changed the run: %+v", v)
	}
}

// An agent that answers after a cancel made through another process, before
// its worker looked at the record again: the answer is discarded and no
// later step starts, as for a cancel the worker noticed.
func TestCancelDiscardsAnAnswerBeforeTheWorkerLooks(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	worker := w.node(t, inv, "worker", sharedPoll(time.Hour)).withMonitor(rec.monitor).start(t)
	started, release := holdAt(inv, "measure", false)
	runID := startThreeSteps(t, worker.r)
	<-started
	if _, err := w.node(t, newFake(), "gateway").r.Cancel(ctx, "alice", runID); err != nil {
		t.Fatal(err)
	}
	close(release)
	// The step ends one way or the other: FAILED (discarded) or COMPLETED.
	for {
		if _, ok := rec.find(runID, "measure", agenthttp.StepCompleted); ok {
			break
		}
		if _, ok := rec.find(runID, "measure", agenthttp.StepFailed); ok {
			break
		}
		select {
		case <-rec.ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("measure never ended: %v", rec.seq(runID))
		}
	}
	worker.crash() // waits for its run to let go
	if _, done := rec.find(runID, "measure", agenthttp.StepCompleted); done {
		t.Errorf("a step answered after the cancel reported completed: %v", rec.seq(runID))
	}
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Errorf("the step after the cancel ran %d times", n)
	}
}
