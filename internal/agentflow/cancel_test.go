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

// never is a poll interval no test reaches: the in-flight table alone must
// stop the step.
const never = time.Hour

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
	r := w.runner(inv, nil)
	runID := startThreeSteps(t, r)
	v, err := r.Cancel(ctx, "alice", runID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != store.StatusCancelled || v.FinishedAt == nil || len(v.Outputs) != 0 ||
		stepStates(v) != "shout=cancelled measure=cancelled report=cancelled" {
		t.Fatalf("cancelled run %+v %s", v, stepStates(v))
	}
	// Its queued step is dropped by the worker: a run started after it (the
	// queue is first in, first out for one worker) finishes, and the
	// cancelled one never reached an agent.
	later, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	work(t, r, "w1")
	if v := waitFinal(t, r, "alice", later); v.Status != store.StatusSuccess {
		t.Fatalf("later run %+v", v)
	}
	if n := inv.count(agentflow.TaskID(runID, "shout")); n != 0 {
		t.Fatalf("a cancelled run's step invoked %d times", n)
	}
	if v, _ := r.Get(ctx, "alice", runID); v.Status != store.StatusCancelled {
		t.Fatalf("after the worker: %+v", v)
	}
}

// A step in flight on the Runner that cancels is stopped at once (no poll);
// the run stays cancelled with the completed step's output.
func TestCancelStopsAStepInThisProcess(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	r := w.runner(inv, nil)
	r.Monitor, r.CancelPoll = rec.monitor, never
	started, _ := holdAt(inv, "measure", true)
	runID := startThreeSteps(t, r)
	work(t, r, "w1")
	<-started
	v, err := r.Cancel(ctx, "alice", runID)
	if err != nil {
		t.Fatal(err)
	}
	m := rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
	if md := meta(t, m); md["cancelled"] != true || md["code"] != "cancelled" {
		t.Fatalf("report %v", md)
	}
	wantSeq(t, rec.seq(runID), "shout:RUNNING", "shout:COMPLETED", "measure:RUNNING", "measure:FAILED")
	v, err = r.Get(ctx, "alice", runID)
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

// A cancel made by another process (another Runner on the same store) stops
// the step at its worker's next poll of the record.
func TestCancelFromAnotherProcess(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	worker := w.runner(inv, nil)
	worker.Monitor, worker.CancelPoll = rec.monitor, 20*time.Millisecond
	started, _ := holdAt(inv, "measure", true)
	runID := startThreeSteps(t, worker)
	work(t, worker, "w1")
	<-started
	gateway := w.runner(newFake(), nil)
	if _, err := gateway.Cancel(ctx, "alice", runID); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
	v, err := gateway.Get(ctx, "alice", runID)
	if err != nil || v.Status != store.StatusCancelled || stepStates(v) != "shout=completed measure=cancelled report=cancelled" {
		t.Fatalf("run %+v %s %v", v, stepStates(v), err)
	}
	if n := inv.count(agentflow.TaskID(runID, "report")); n != 0 {
		t.Fatalf("the step after the cancel ran %d times", n)
	}
}

// An agent that answers after the cancel (its worker never noticed): the
// answer is discarded and the run stays cancelled.
func TestCancelDiscardsALateResult(t *testing.T) {
	w := newWorld(t)
	inv := newFake()
	rec := newRecorder()
	worker := w.runner(inv, nil)
	worker.Monitor, worker.CancelPoll = rec.monitor, never
	started, release := holdAt(inv, "measure", false)
	runID := startThreeSteps(t, worker)
	work(t, worker, "w1")
	<-started
	if _, err := w.runner(newFake(), nil).Cancel(ctx, "alice", runID); err != nil {
		t.Fatal(err)
	}
	close(release) // the agent answers "measure" successfully, too late
	rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
	if _, done := rec.find(runID, "measure", agenthttp.StepCompleted); done {
		t.Fatalf("a discarded step reported completed: %v", rec.seq(runID))
	}
	v, err := worker.Get(ctx, "alice", runID)
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
	r := w.runner(newFake(), nil)
	queued, err := r.Start(ctx, "alice", decode(t, threeSteps), nil)
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
	if _, err := r.Cancel(ctx, "alice", queued); err != nil {
		t.Fatal(err)
	}
	_, err = r.Cancel(ctx, "alice", queued)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Conflict || fe.Details["status"] != "cancelled" ||
		!strings.Contains(fe.Message, "already cancelled") {
		t.Fatalf("twice: %#v", err)
	}
	// A finished run.
	work(t, r, "w1")
	done, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "a"}`))
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
