package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
)

// The branches of a fork really overlap: each waits at a gate that opens only
// when every branch has reached it (run one after the other, the first would
// wait for ever). What they write is seen after the fork.
func TestForkRunsBranchesTogether(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("fork", "Fork", `{"branches":[["wait-a","a"],["wait-b","b"],["wait-c"]]}`),
		def("wait-a", "Gate", `{"parties":3,"gate":"all"}`),
		def("wait-b", "Gate", `{"parties":3,"gate":"all"}`),
		def("wait-c", "Gate", `{"parties":3,"gate":"all"}`),
		def("a", "Const", `{"value":"A","outputPath":"/workflow/a"}`),
		def("b", "Const", `{"value":"B","outputPath":"/workflow/b"}`),
		def("read-a", "Const", `{"read":"/workflow/a","outputPath":"/workflow/ra"}`),
		def("read-b", "Const", `{"read":"/workflow/b","outputPath":"/workflow/rb"}`),
		begin("", "fork", "read-a", "read-b"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 20e9)
	defer cancel()
	r := newEngine(engine.Options{}).Run(ctx, plan, engine.RunOptions{})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	if r.Results["read-a"] != "A" || r.Results["read-b"] != "B" {
		t.Fatalf("after the fork: %#v", r.Results)
	}
}

func TestForkFailure(t *testing.T) {
	for _, tc := range []struct {
		onError  string
		branches string
		want     engine.Status
	}{
		// The failure cancels the branch still blocked.
		{"", `[["bad"],["slow","after"]]`, engine.StatusFailed},
		// Under continue, the other branch runs to its end.
		{"continue", `[["bad"],["after"]]`, engine.StatusPartial},
	} {
		t.Run("onError="+tc.onError, func(t *testing.T) {
			f := newFakes(t)
			plan := compile(t, f.env(),
				def("fork", "Fork", `{"branches":`+tc.branches+`}`),
				def("bad", "Flaky", `{"failures":-1}`),
				def("slow", "Block", `{}`),
				def("after", "Const", `{"value":1,"outputPath":"/workflow/after"}`),
				begin(tc.onError, "fork"),
			)
			r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
			if r.Status != tc.want || len(r.Errors) != 1 {
				t.Fatalf("status %s errors %s", r.Status, errorsText(r))
			}
			if tc.onError == "continue" && r.Results["after"] != float64(1) {
				t.Fatalf("the other branch did not finish: %#v", r.Results)
			}
		})
	}
}

// A branch that suspends halts the fork; on resume the finished branch does
// not run again.
func TestForkSuspendAndResume(t *testing.T) {
	f := newFakes(t)
	cps := engine.NewMemoryCheckpointer()
	lines := []string{
		def("fork", "Fork", `{"branches":[["a"],["ask"]]}`),
		def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
		def("ask", "Ask", `{"outputPath":"/workflow/answer"}`),
		def("end", "Const", `{"read":"/workflow/answer","outputPath":"/workflow/end"}`),
		begin("", "fork", "end"),
	}
	r := newEngine(engine.Options{Checkpointer: cps}).Run(context.Background(), compile(t, f.env(), lines...), engine.RunOptions{ExecutionID: "fk"})
	if r.Status != engine.StatusWaiting || r.Waiting == nil || r.Waiting.OperationID != "ask" {
		t.Fatalf("status %s waiting %+v", r.Status, r.Waiting)
	}
	cp, err := cps.Load(context.Background(), "fk")
	if err != nil {
		t.Fatal(err)
	}
	if cp.Waiting == nil || cp.Waiting.Position != "0/b1/0" {
		t.Fatalf("checkpoint waiting %+v", cp.Waiting)
	}
	r = newEngine(engine.Options{Checkpointer: cps}).Resume(context.Background(), compile(t, f.env(), lines...), cp, engine.ResumeOptions{Answer: json.RawMessage(`"yes"`)})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	if r.Results["end"] != "yes" || r.Results["a"] != float64(1) || f.count("a") != 1 || f.count("fork") != 1 {
		t.Fatalf("results %#v, a ran %d times, fork %d", r.Results, f.count("a"), f.count("fork"))
	}
}

// A step's own OnError overrides the plan's.
func TestStepOnErrorOverride(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("bad", "Flaky", `{"failures":-1}`),
		def("next", "Const", `{"value":2,"outputPath":"/workflow/next"}`),
		begin("", "bad", "next"),
	)
	plan.Steps["bad"].OnError = engine.Continue
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusPartial || r.Results["next"] != float64(2) || len(r.Errors) != 1 {
		t.Fatalf("continue on one step: status %s results %v", r.Status, r.Results)
	}
	plan = compile(t, f.env(),
		def("bad", "Flaky", `{"failures":-1}`),
		def("next", "Const", `{"value":2,"outputPath":"/workflow/next"}`),
		begin("continue", "bad", "next"),
	)
	plan.Steps["bad"].OnError = engine.Stop
	r = newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusFailed || r.Results["next"] != nil {
		t.Fatalf("stop on one step: status %s results %v", r.Status, r.Results)
	}
}
