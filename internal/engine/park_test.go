package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
)

// parkPlan is Const a, Wait 10 s, Const b.
func parkPlan(t *testing.T, f *fakes) *engine.Plan {
	return compile(t, f.envWith(op.WaitOp),
		def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
		def("pause", "Wait", `{"duration":10000}`),
		def("b", "Const", `{"value":2,"outputPath":"/workflow/b"}`),
		begin("", "a", "pause", "b"))
}

// A Wait longer than ParkAfter parks the run (checkpointed, not finished,
// ParkedUntil its wake-up) instead of sleeping; resumed at that time it goes
// on after the Wait, which counts against the budget.
func TestWaitParksAndResumes(t *testing.T) {
	f := newFakes(t)
	clk := fakeClock()
	cps := engine.NewMemoryCheckpointer()
	e := newEngine(engine.Options{Clock: clk, Checkpointer: cps})
	plan := parkPlan(t, f)
	start := clk.Now()
	var rec recorder
	r := e.Run(context.Background(), plan, engine.RunOptions{ExecutionID: "run-1", ParkAfter: time.Second, OnEvent: rec.on})
	if r.Status != engine.StatusRunning || !r.ParkedUntil.Equal(start.Add(10*time.Second)) {
		t.Fatalf("status %s, parked until %v; want running, parked until %v (%s)", r.Status, r.ParkedUntil, start.Add(10*time.Second), errorsText(r))
	}
	if len(clk.Sleeps()) != 0 {
		t.Fatalf("the Wait slept %v instead of parking", clk.Sleeps())
	}
	if f.count("b") != 0 {
		t.Fatal("the step after the Wait ran before the wake-up")
	}
	evs := rec.list()
	if last := evs[len(evs)-1]; last.Kind != engine.EventParked || last.OperationID != "pause" || last.DelayMs != 10000 {
		t.Fatalf("last event %+v, want parked of pause for 10000 ms", last)
	}
	cp, err := cps.Load(context.Background(), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if cp.Parked == nil || cp.Parked.Position != "1" || cp.Status != engine.StatusRunning {
		t.Fatalf("checkpoint parked %+v, status %s", cp.Parked, cp.Status)
	}

	// Resumed early (a restart, a spurious delivery): it parks again for
	// what remains, and the early part is not counted twice.
	clk.Advance(4 * time.Second)
	r = e.Resume(context.Background(), plan, cp, engine.ResumeOptions{ParkAfter: time.Second})
	if r.Status != engine.StatusRunning || !r.ParkedUntil.Equal(start.Add(10*time.Second)) {
		t.Fatalf("early resume: status %s, parked until %v", r.Status, r.ParkedUntil)
	}
	if cp, err = cps.Load(context.Background(), "run-1"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(6 * time.Second)
	r = e.Resume(context.Background(), plan, cp, engine.ResumeOptions{ParkAfter: time.Second})
	if r.Status != engine.StatusSuccess || !r.ParkedUntil.IsZero() {
		t.Fatalf("resume at the wake-up: status %s (%s), parked until %v", r.Status, errorsText(r), r.ParkedUntil)
	}
	if f.count("a") != 1 || f.count("b") != 1 {
		t.Fatalf("a ran %d times, b %d times; want once each", f.count("a"), f.count("b"))
	}
	if r.DurationMs != 10000 {
		t.Fatalf("duration %d ms, want the Wait's 10000", r.DurationMs)
	}
}

// A Wait that would outlast the budget parks until the budget's end, and the
// resumed run times out there.
func TestParkedWaitStopsAtTheBudget(t *testing.T) {
	f := newFakes(t)
	clk := fakeClock()
	cps := engine.NewMemoryCheckpointer()
	e := newEngine(engine.Options{Clock: clk, Checkpointer: cps})
	plan := parkPlan(t, f)
	start := clk.Now()
	r := e.Run(context.Background(), plan, engine.RunOptions{ExecutionID: "run-1", ParkAfter: time.Second, MaxExecutionTime: 5 * time.Second})
	if !r.ParkedUntil.Equal(start.Add(5 * time.Second)) {
		t.Fatalf("parked until %v, want the budget's end %v", r.ParkedUntil, start.Add(5*time.Second))
	}
	cp, err := cps.Load(context.Background(), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	r = e.Resume(context.Background(), plan, cp, engine.ResumeOptions{ParkAfter: time.Second})
	if r.Status != engine.StatusFailed || len(r.Errors) != 1 || r.Errors[0].Type != "TimeoutError" || f.count("b") != 0 {
		t.Fatalf("status %s, errors %s, b ran %d times; want failed with one TimeoutError", r.Status, errorsText(r), f.count("b"))
	}
}

// Without ParkAfter, and beside siblings running at the same time, a Wait
// sleeps as before: parking would halt the siblings mid-step.
func TestWaitDoesNotParkWhereItMayNot(t *testing.T) {
	cases := []struct {
		name      string
		parkAfter time.Duration
		lines     []string
	}{
		{"no ParkAfter", 0, []string{
			def("pause", "Wait", `{"duration":10000}`),
			begin("", "pause")}},
		{"concurrent loop", time.Second, []string{
			def("items", "Const", `{"value":[1,2],"outputPath":"/workflow/items"}`),
			def("loop", "Each", `{"inputPath":"/workflow/items","operations":["pause"],"concurrency":2}`),
			def("pause", "Wait", `{"duration":10000}`),
			begin("", "items", "loop")}},
		{"fork", time.Second, []string{
			def("fork", "Fork", `{"branches":[["pause"],["other"]]}`),
			def("pause", "Wait", `{"duration":10000}`),
			def("other", "Const", `{"value":1}`),
			begin("", "fork")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			clk := fakeClock()
			e := newEngine(engine.Options{Clock: clk, Checkpointer: engine.NewMemoryCheckpointer()})
			r := e.Run(context.Background(), compile(t, f.envWith(op.WaitOp), c.lines...),
				engine.RunOptions{ExecutionID: "run-1", ParkAfter: c.parkAfter})
			if r.Status != engine.StatusSuccess || !r.ParkedUntil.IsZero() || len(clk.Sleeps()) == 0 {
				t.Fatalf("status %s (%s), parked until %v, sleeps %v; want success after sleeping", r.Status, errorsText(r), r.ParkedUntil, clk.Sleeps())
			}
		})
	}
}
