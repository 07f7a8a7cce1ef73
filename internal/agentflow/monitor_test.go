package agentflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// recorder is a Monitor that keeps every message and hands each to a
// channel, so that tests wait for a report instead of sleeping.
type recorder struct {
	mu   sync.Mutex
	msgs []agenthttp.MonitoringMessage
	ch   chan agenthttp.MonitoringMessage
}

func newRecorder() *recorder { return &recorder{ch: make(chan agenthttp.MonitoringMessage, 256)} }

func (r *recorder) monitor(_ context.Context, m agenthttp.MonitoringMessage) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
	r.ch <- m
}

func (r *recorder) all() []agenthttp.MonitoringMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agenthttp.MonitoringMessage(nil), r.msgs...)
}

// seq is the run's reports as "step:STATUS".
func (r *recorder) seq(runID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.msgs {
		if m.RunID == runID {
			out = append(out, m.StepID+":"+string(m.Status))
		}
	}
	return out
}

func (r *recorder) find(runID, step string, st agenthttp.StepStatus) (agenthttp.MonitoringMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		if m.RunID == runID && m.StepID == step && m.Status == st {
			return m, true
		}
	}
	return agenthttp.MonitoringMessage{}, false
}

// waitFor blocks until a report of step with status st arrives (earlier
// ones included).
func (r *recorder) waitFor(t *testing.T, runID, step string, st agenthttp.StepStatus) agenthttp.MonitoringMessage {
	t.Helper()
	if m, ok := r.find(runID, step, st); ok {
		return m
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m := <-r.ch:
			if m.RunID == runID && m.StepID == step && m.Status == st {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s report of %s/%s; got %v", st, runID, step, r.seq(runID))
		}
	}
}

func meta(t *testing.T, m agenthttp.MonitoringMessage) map[string]any {
	t.Helper()
	var md map[string]any
	if err := json.Unmarshal(m.Metadata, &md); err != nil {
		t.Fatalf("metadata %s: %v", m.Metadata, err)
	}
	return md
}

func wantSeq(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("reports\n got  %v\n want %v", got, want)
	}
}

func TestMonitorReportsEachStep(t *testing.T) {
	w := newWorld(t)
	rec := newRecorder()
	r := w.node(t, newFake(), "n1").withMonitor(rec.monitor).start(t).r
	runID := startThreeSteps(t, r)
	if v := waitFinal(t, r, "alice", runID); v.Status != store.StatusSuccess {
		t.Fatalf("run %+v", v)
	}
	wantSeq(t, rec.seq(runID), "shout:RUNNING", "shout:COMPLETED", "measure:RUNNING", "measure:COMPLETED",
		"report:RUNNING", "report:COMPLETED")
	agents := map[string]string{"shout": "upper", "measure": "count", "report": "echo"}
	for _, m := range rec.all() {
		md := meta(t, m)
		if m.StepName != agents[m.StepID] || md["agent_name"] != agents[m.StepID] ||
			md["task_id"] != agentflow.TaskID(runID, m.StepID) || m.Timestamp.IsZero() {
			t.Fatalf("report %+v %v", m, md)
		}
		if _, has := md["duration_ms"]; has != (m.Status == agenthttp.StepCompleted) {
			t.Fatalf("duration_ms in %s report: %v", m.Status, md)
		}
		// Every report is a valid queue message of the seed platform's shape.
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := agenthttp.DecodeMonitoringMessage(b, agenthttp.Limits{})
		if err != nil || back.RunID != runID || back.Status != m.Status {
			t.Fatalf("%s does not decode: %v", b, err)
		}
	}
}

// A step whose agent fails reports FAILED with the public message, never the
// internal cause; a step whose input cannot be built reports FAILED alone
// (its agent was never called).
func TestMonitorReportsAFailingStep(t *testing.T) {
	const secret = "sk-live-0123456789"
	t.Run("agent fails", func(t *testing.T) {
		w := newWorld(t)
		rec := newRecorder()
		inv := newFake()
		inv.before = func(_ context.Context, taskID string) error {
			if strings.HasSuffix(taskID, "/measure") {
				return fault.New(fault.Upstream, "agent count answered 401 Unauthorized").WithDetail("attempts", 4).
					WithCause(errors.New("Authorization: Bearer " + secret))
			}
			return nil
		}
		r := w.node(t, inv, "n1").withMonitor(rec.monitor).start(t).r
		runID := startThreeSteps(t, r)
		if v := waitFinal(t, r, "alice", runID); v.Status != store.StatusFailed {
			t.Fatalf("run %+v", v)
		}
		// The run is final before its FAILED report is sent.
		m := rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
		wantSeq(t, rec.seq(runID), "shout:RUNNING", "shout:COMPLETED", "measure:RUNNING", "measure:FAILED")
		md := meta(t, m)
		if msg, _ := md["error"].(string); !strings.Contains(msg, `step "measure" (agent "count"): agent count answered 401`) ||
			md["code"] != "upstream" || md["attempts"] != float64(4) {
			t.Fatalf("metadata %v", md)
		}
		if _, has := md["duration_ms"]; !has {
			t.Fatalf("no duration_ms: %v", md)
		}
		for _, m := range rec.all() {
			if b, _ := json.Marshal(m); strings.Contains(string(b), secret) {
				t.Fatalf("a secret in a report: %s", b)
			}
		}
	})
	t.Run("input cannot be built", func(t *testing.T) {
		w := newWorld(t)
		rec := newRecorder()
		r := w.node(t, newFake(), "n1").withMonitor(rec.monitor).start(t).r
		doc := strings.Replace(threeSteps, `${shout.output.text}"}`, `${shout.output.missing}"}`, 1)
		runID, err := r.Start(ctx, "alice", decode(t, doc), json.RawMessage(`{"text": "river"}`), "")
		if err != nil {
			t.Fatal(err)
		}
		waitFinal(t, r, "alice", runID)
		m := rec.waitFor(t, runID, "measure", agenthttp.StepFailed)
		wantSeq(t, rec.seq(runID), "shout:RUNNING", "shout:COMPLETED", "measure:FAILED")
		if md := meta(t, m); !strings.Contains(md["error"].(string), "${shout.output.missing} is not there") || md["code"] != "invalid" {
			t.Fatalf("metadata %v", md)
		}
	})
}

// A run resumed by another process reports a step recorded before the
// crash only once; the step the crash cut short runs again.
func TestMonitorResumedRun(t *testing.T) {
	w := newWorld(t)
	rec := newRecorder()
	inv := newFake()
	started := holdUntilCrash(inv, "measure")
	first := w.node(t, inv, "n1").withMonitor(rec.monitor).start(t)
	runID := startThreeSteps(t, first.r)
	<-started
	w.resumeIn(t, first, w.node(t, inv, "n2").withMonitor(rec.monitor), runID)
	rec.waitFor(t, runID, "report", agenthttp.StepCompleted)
	// Whether the step the crash cut short reports FAILED is the dying
	// process's affair: the order of what was done is the point.
	var seq []string
	for _, s := range rec.seq(runID) {
		if s != "measure:FAILED" {
			seq = append(seq, s)
		}
	}
	wantSeq(t, seq, "shout:RUNNING", "shout:COMPLETED", "measure:RUNNING",
		"measure:RUNNING", "measure:COMPLETED", "report:RUNNING", "report:COMPLETED")
}

// A Monitor that panics does not stop the run.
func TestMonitorPanicDoesNotFailTheRun(t *testing.T) {
	w := newWorld(t)
	r := w.node(t, newFake(), "n1").withMonitor(func(context.Context, agenthttp.MonitoringMessage) { panic("monitor broke") }).start(t).r
	runID := startThreeSteps(t, r)
	if v := waitFinal(t, r, "alice", runID); v.Status != store.StatusSuccess {
		t.Fatalf("run %+v", v)
	}
}
