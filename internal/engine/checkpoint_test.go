package engine_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

// crash runs plan until a Cancel op stops it, and returns the saved checkpoint.
func crash(t *testing.T, f *fakes, plan *engine.Plan, cps engine.Checkpointer, input any) *engine.Checkpoint {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.cancel = cancel
	r := newEngine(engine.Options{Checkpointer: cps}).Run(ctx, plan, engine.RunOptions{ExecutionID: "run-1", Account: "acct", Input: input})
	if r.Status != engine.StatusCancelled {
		t.Fatalf("first run: status = %s (%s), want cancelled", r.Status, errorsText(r))
	}
	cp, err := cps.Load(context.Background(), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestCheckpointResume(t *testing.T) {
	cases := []struct {
		name   string
		lines  []string
		input  any
		once   []string // steps that must have completed exactly once
		result map[string]any
	}{
		{"top level", []string{
			def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
			def("b", "Const", `{"read":"/input/x","outputPath":"/workflow/b"}`),
			def("crash", "Cancel", `{"outputPath":"/workflow/c"}`),
			def("d", "Const", `{"read":"/workflow/b","outputPath":"/workflow/d"}`),
			begin("", "a", "b", "crash", "d"),
		}, map[string]any{"x": "in"}, []string{"a#<nil>", "b#<nil>", "d#<nil>"},
			map[string]any{"a": float64(1), "b": "in", "crash": "after-crash", "d": "in"}},
		{"inside a loop", []string{
			def("items", "Const", `{"value":["p","q","r","s"],"outputPath":"/workflow/items"}`),
			def("loop", "Each", `{"inputPath":"/workflow/items","operations":["x","crash"],"outputPath":"/workflow/out"}`),
			def("x", "Const", `{"read":"/workflow/item","outputPath":"/workflow/tmp"}`),
			def("crash", "Cancel", `{"equals":2}`),
			def("tail", "Const", `{"read":"/workflow/out","outputPath":"/workflow/tail"}`),
			begin("", "items", "loop", "tail"),
		}, nil, []string{"x#0", "x#1", "x#2", "x#3"},
			map[string]any{"items": []any{"p", "q", "r", "s"}, "loop": []any{nil, nil, nil, nil}, "x": "s", "crash": nil, "tail": []any{nil, nil, nil, nil}}},
		{"inside a concurrent loop", []string{
			def("items", "Const", `{"value":["p","q","r","s","t"],"outputPath":"/workflow/items"}`),
			def("loop", "Each", `{"inputPath":"/workflow/items","operations":["x","crash","y"],"concurrency":2,"outputPath":"/workflow/out"}`),
			def("x", "Const", `{"read":"/workflow/item","outputPath":"/workflow/tmp"}`),
			def("crash", "Cancel", `{"equals":2}`),
			// y reads what x wrote in the same iteration's overlay.
			def("y", "Const", `{"read":"/workflow/tmp","outputPath":"/workflow/y"}`),
			begin("", "items", "loop"),
		}, nil, []string{"x#0", "x#1", "x#2", "x#3", "x#4", "y#0", "y#1", "y#2", "y#3", "y#4"},
			map[string]any{"items": []any{"p", "q", "r", "s", "t"}, "loop": []any{"p", "q", "r", "s", "t"}, "x": "t", "crash": nil, "y": "t"}},
		{"inside a branch", []string{
			def("flag", "Const", `{"value":true,"outputPath":"/workflow/flag"}`),
			// The branch flips the flag its condition read: a replay must
			// follow the recorded branch, not decide again.
			def("if", "If", `{"path":"/workflow/flag","ifTrue":["flip","crash","z"],"ifFalse":["wrong"],"outputPath":"/workflow/if"}`),
			def("flip", "Const", `{"value":false,"outputPath":"/workflow/flag"}`),
			def("crash", "Cancel", `{}`),
			def("z", "Const", `{"value":"z","outputPath":"/workflow/z"}`),
			def("wrong", "Const", `{}`),
			begin("", "flag", "if"),
		}, nil, []string{"flag#<nil>", "flip#<nil>", "z#<nil>"},
			map[string]any{"flag": true, "if": map[string]any{"branch": "ifTrue"}, "flip": false, "crash": nil, "z": "z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			cps := engine.NewMemoryCheckpointer()
			cp := crash(t, f, compile(t, f.env(), c.lines...), cps, c.input)
			if cp.Status != engine.StatusCancelled || len(cp.Finished) == 0 {
				t.Fatalf("checkpoint status %s finished %v", cp.Status, cp.Finished)
			}
			// A fresh engine and a freshly compiled plan, as after a restart.
			rec := &recorder{}
			r := newEngine(engine.Options{Checkpointer: cps}).Resume(context.Background(), compile(t, f.env(), c.lines...), cp, engine.ResumeOptions{OnEvent: rec.on})
			if r.Status != engine.StatusSuccess {
				t.Fatalf("resume: status = %s (%s)", r.Status, errorsText(r))
			}
			if !reflect.DeepEqual(r.Results, c.result) {
				t.Errorf("results =\n%#v\nwant\n%#v", r.Results, c.result)
			}
			for _, k := range c.once {
				if n := f.completed[k]; n != 1 {
					t.Errorf("%s completed %d times, want once", k, n)
				}
			}
			if f.count("wrong") != 0 {
				t.Errorf("the replay took the other branch")
			}
			if evs := rec.list(); len(evs) == 0 || !evs[0].Resumed {
				t.Errorf("first event of the resume = %+v, want execution.started resumed", evs)
			}
			final, err := cps.Load(context.Background(), "run-1")
			if err != nil || final.Status != engine.StatusSuccess {
				t.Errorf("final checkpoint %v, %v", final, err)
			}
			if len(final.Decisions) != 0 || len(final.Outputs) != 0 || len(final.Overlays) != 0 {
				t.Errorf("final checkpoint keeps nested entries: %+v", final)
			}
		})
	}
}

func TestCheckpointIsJSONAndSavedPerStep(t *testing.T) {
	f := newFakes(t)
	cps := engine.NewMemoryCheckpointer()
	plan := compile(t, f.env(),
		def("items", "Const", `{"value":[1,2],"outputPath":"/workflow/items"}`),
		def("loop", "Each", `{"inputPath":"/workflow/items","operations":["x"]}`),
		def("x", "Const", `{}`),
		begin("", "items", "loop"))
	r := newEngine(engine.Options{Checkpointer: cps}).Run(context.Background(), plan, engine.RunOptions{ExecutionID: "e"})
	if r.Status != engine.StatusSuccess {
		t.Fatal(r.Status)
	}
	// items, the loop's decision, x twice, two iterations, the loop, the end.
	if got := cps.Saves(); got != 8 {
		t.Errorf("saves = %d, want 8", got)
	}
	cp, err := cps.Load(context.Background(), "e")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	var back engine.Checkpoint
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Finished, []string{"0", "1"}) {
		t.Errorf("checkpoint %s round-trips to %+v (%v)", b, back, err)
	}
	if _, err := cps.Load(context.Background(), "nope"); fault.KindOf(err) != fault.NotFound {
		t.Errorf("Load of an unknown id: %v", err)
	}
}

func TestStepStateSurvivesRestart(t *testing.T) {
	f := newFakes(t)
	cps := engine.NewMemoryCheckpointer()
	lines := []string{def("w", "Save", `{"outputPath":"/workflow/w"}`), begin("", "w")}
	cp := crash(t, f, compile(t, f.env(), lines...), cps, nil)
	if string(cp.State["0"]) != `{"wakeAt":"later"}` {
		t.Fatalf("state = %s", cp.State)
	}
	r := newEngine(engine.Options{Checkpointer: cps}).Resume(context.Background(), compile(t, f.env(), lines...), cp, engine.ResumeOptions{})
	if r.Status != engine.StatusSuccess || !reflect.DeepEqual(r.Results["w"], map[string]any{"wakeAt": "later"}) {
		t.Errorf("status %s results %v", r.Status, r.Results)
	}
}

func TestSuspendAndResume(t *testing.T) {
	f := newFakes(t)
	cps := engine.NewMemoryCheckpointer()
	lines := []string{
		def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
		def("items", "Const", `{"value":["first","second"],"outputPath":"/workflow/items"}`),
		def("loop", "Each", `{"inputPath":"/workflow/items","operations":["ask"],"outputPath":"/workflow/answers"}`),
		def("ask", "Ask", `{"outputPath":"/workflow/answer"}`),
		def("b", "Const", `{"read":"/workflow/answers","outputPath":"/workflow/b"}`),
		begin("", "a", "items", "loop", "b"),
	}
	rec := &recorder{}
	r := newEngine(engine.Options{Checkpointer: cps}).Run(context.Background(), compile(t, f.env(), lines...), engine.RunOptions{ExecutionID: "s", OnEvent: rec.on})
	if r.Status != engine.StatusWaiting || r.Waiting == nil || r.Waiting.OperationID != "ask" || r.Waiting.Reason != "needs approval" {
		t.Fatalf("status %s waiting %+v", r.Status, r.Waiting)
	}
	if !r.CompletedAt.IsZero() {
		t.Errorf("a waiting execution has a completion time")
	}
	evs := rec.list()
	if ev := evs[len(evs)-2]; ev.Kind != engine.EventWaiting || ev.OperationID != "ask" || ev.Iteration == nil || *ev.Iteration != 0 {
		t.Errorf("event before the end = %+v, want waiting for ask in iteration 0", ev)
	}
	b, _ := json.Marshal(r)
	var wire map[string]any
	_ = json.Unmarshal(b, &wire)
	if w, _ := wire["waiting"].(map[string]any); w["operationId"] != "ask" || w["request"] == nil {
		t.Errorf("waiting on the wire = %s", b)
	}

	// Each answer goes through a fresh engine, as after a restart.
	for i, answer := range []string{`"yes"`, `"no"`} {
		cp, err := cps.Load(context.Background(), "s")
		if err != nil {
			t.Fatal(err)
		}
		if cp.Status != engine.StatusWaiting || cp.Waiting == nil || cp.Waiting.Position != "2/it"+string(rune('0'+i))+"/0" {
			t.Fatalf("checkpoint %d: status %s waiting %+v", i, cp.Status, cp.Waiting)
		}
		r = newEngine(engine.Options{Checkpointer: cps}).Resume(context.Background(), compile(t, f.env(), lines...), cp, engine.ResumeOptions{Answer: json.RawMessage(answer)})
	}
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s (%s) waiting %+v", r.Status, errorsText(r), r.Waiting)
	}
	if want := []any{"yes", "no"}; !reflect.DeepEqual(r.Results["b"], want) || !reflect.DeepEqual(r.Results["loop"], want) {
		t.Errorf("results = %#v", r.Results)
	}
	if f.count("a") != 1 || f.count("b") != 1 {
		t.Errorf("steps before/after the suspension ran %d/%d times", f.count("a"), f.count("b"))
	}
	// Resuming a finished execution gives its result back and runs nothing.
	cp, _ := cps.Load(context.Background(), "s")
	again := newEngine(engine.Options{}).Resume(context.Background(), compile(t, f.env(), lines...), cp, engine.ResumeOptions{})
	if again.Status != engine.StatusSuccess || f.count("b") != 1 {
		t.Errorf("resume of a finished execution: %s, b ran %d times", again.Status, f.count("b"))
	}
}

func TestResumeRefusesAnotherPlan(t *testing.T) {
	f := newFakes(t)
	cps := engine.NewMemoryCheckpointer()
	cp := crash(t, f, compile(t, f.env(), def("c", "Cancel", `{}`), begin("", "c")), cps, nil)
	other := compile(t, f.env(), def("c", "Cancel", `{}`), def("d", "Const", `{}`), begin("", "c", "d"))
	r := newEngine(engine.Options{}).Resume(context.Background(), other, cp, engine.ResumeOptions{})
	if r.Status != engine.StatusFailed || len(r.Errors) != 1 || f.count("d") != 0 {
		t.Errorf("status %s errors %s", r.Status, errorsText(r))
	}
	if r := newEngine(engine.Options{}).Resume(context.Background(), other, nil, engine.ResumeOptions{}); r.Status != engine.StatusFailed {
		t.Errorf("resume without a checkpoint: %s", r.Status)
	}
}
