package engine_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

func newEngine(o engine.Options) *engine.Engine {
	if o.Clock == nil {
		o.Clock = fakeClock()
	}
	return engine.New(o)
}

func TestRunSequentialResults(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("a", "Const", `{"value":{"n":1},"outputPath":"/workflow/a"}`),
		def("b", "Const", `{"read":"/workflow/a.n","outputPath":"/workflow/b"}`),
		def("c", "Const", `{"value":"no output path"}`),
		begin("", "a", "b", "c"),
	)
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{ExecutionID: "x1"})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	want := map[string]any{"a": map[string]any{"n": float64(1)}, "b": float64(1), "c": nil}
	if !reflect.DeepEqual(r.Results, want) {
		t.Errorf("results = %#v, want %#v", r.Results, want)
	}
	if r.ExecutionID != "x1" || r.StartedAt.IsZero() || r.CompletedAt.IsZero() {
		t.Errorf("ids/times not set: %+v", r)
	}
}

func TestNestedConditionalInLoopInConditional(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("seed", "Const", `{"value":[1,2,3],"outputPath":"/workflow/items"}`),
		def("outer-if", "If", `{"path":"/workflow/items[0]","equals":1,"ifTrue":["loop"],"ifFalse":["never"],"outputPath":"/workflow/outer"}`),
		def("loop", "Each", `{"inputPath":"/workflow/items","operations":["inner-if"],"outputPath":"/workflow/looped"}`),
		def("inner-if", "If", `{"path":"/workflow/item","equals":2,"ifTrue":["even"],"ifFalse":["odd"],"outputPath":"/workflow/branch"}`),
		def("even", "Const", `{"read":"/workflow/item","outputPath":"/workflow/even"}`),
		def("odd", "Const", `{"read":"/workflow/index","outputPath":"/workflow/odd"}`),
		def("never", "Const", `{"value":"no"}`),
		begin("", "seed", "outer-if"),
	)
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	want := map[string]any{
		"seed":     []any{float64(1), float64(2), float64(3)},
		"outer-if": map[string]any{"branch": "ifTrue"},
		"loop": []any{
			map[string]any{"branch": "ifFalse"},
			map[string]any{"branch": "ifTrue"},
			map[string]any{"branch": "ifFalse"},
		},
		"inner-if": map[string]any{"branch": "ifFalse"}, // last iteration
		"even":     float64(2),
		"odd":      float64(2), // index of the last odd item
	}
	if !reflect.DeepEqual(r.Results, want) {
		t.Errorf("results =\n%#v\nwant\n%#v", r.Results, want)
	}
	if f.count("never") != 0 || f.count("inner-if") != 3 || f.count("even") != 1 || f.count("odd") != 2 {
		t.Errorf("calls = %v", f.calls)
	}
}

func TestLoopVariablesRestored(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("set-item", "Const", `{"value":"outer","outputPath":"/workflow/item"}`),
		def("items", "Const", `{"value":["a","b"],"outputPath":"/workflow/items"}`),
		def("outer", "Each", `{"inputPath":"/workflow/items","operations":["inner","after-inner"],"outputPath":"/workflow/o"}`),
		def("inner", "Each", `{"inputPath":"/workflow/items","operations":["pair"]}`),
		def("pair", "Const", `{"probe":"/workflow/item"}`),
		// After the inner loop, the outer loop's variables are back.
		def("after-inner", "Const", `{"read":"/workflow/item","outputPath":"/workflow/seen"}`),
		def("probe-item", "Const", `{"probe":"/workflow/item","outputPath":"/workflow/p1"}`),
		def("probe-index", "Const", `{"probe":"/workflow/index","outputPath":"/workflow/p2"}`),
		begin("", "set-item", "items", "outer", "probe-item", "probe-index"),
	)
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	if got := r.Results["outer"]; !reflect.DeepEqual(got, []any{"a", "b"}) {
		t.Errorf("outer loop output = %#v; the inner loop did not restore /workflow/item", got)
	}
	if got := r.Results["probe-item"]; !reflect.DeepEqual(got, map[string]any{"present": true, "value": "outer"}) {
		t.Errorf("/workflow/item after the loop = %#v, want the value from before it", got)
	}
	if got := r.Results["probe-index"]; !reflect.DeepEqual(got, map[string]any{"present": false, "value": nil}) {
		t.Errorf("/workflow/index after the loop = %#v, want absent", got)
	}
}

func TestConcurrentLoopKeepsOrderAndIsolatesOverlays(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("items", "Const", `{"value":[10,20,30,40],"outputPath":"/workflow/items"}`),
		def("loop", "Each", `{"inputPath":"/workflow/items","operations":["write-tmp","sync","read-tmp"],"concurrency":4,"outputPath":"/workflow/out"}`),
		def("write-tmp", "Const", `{"read":"/workflow/item","outputPath":"/workflow/tmp"}`),
		// Every iteration has written tmp before any reads it back.
		def("sync", "Gate", `{"parties":4}`),
		def("read-tmp", "Const", `{"read":"/workflow/tmp","outputPath":"/workflow/back"}`),
		def("leak", "Const", `{"probe":"/workflow/tmp","outputPath":"/workflow/leak"}`),
		def("out", "Const", `{"read":"/workflow/out","outputPath":"/workflow/copy"}`),
		begin("", "items", "loop", "leak", "out"),
	)
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	want := []any{float64(10), float64(20), float64(30), float64(40)}
	if !reflect.DeepEqual(r.Results["loop"], want) || !reflect.DeepEqual(r.Results["out"], want) {
		t.Errorf("loop output = %#v, copy = %#v, want %#v", r.Results["loop"], r.Results["out"], want)
	}
	if got := r.Results["leak"]; !reflect.DeepEqual(got, map[string]any{"present": false, "value": nil}) {
		t.Errorf("/workflow/tmp leaked out of the iterations: %#v", got)
	}
	if got := r.Results["read-tmp"]; got != float64(40) {
		t.Errorf("results[read-tmp] = %#v, want the last iteration's 40", got)
	}
}

func TestConcurrentLoopFailure(t *testing.T) {
	cases := []struct {
		onError    string
		wantStatus engine.Status
		wantErrs   int
		wantOut    any
	}{
		// The failure cancels the blocked siblings; only it is reported.
		{"", engine.StatusFailed, 1, nil},
		// Under continue, every iteration runs to its end, the failing one too.
		{"continue", engine.StatusPartial, 1, []any{"ok", "ok", "ok", "ok"}},
	}
	for _, c := range cases {
		t.Run("onError="+c.onError, func(t *testing.T) {
			f := newFakes(t)
			body := `"wait-all"`
			if c.onError == "continue" {
				body = `"noop"`
			}
			plan := compile(t, f.env(),
				def("items", "Const", `{"value":[0,1,2,3],"outputPath":"/workflow/items"}`),
				def("loop", "Each", `{"inputPath":"/workflow/items","operations":["maybe-fail",`+body+`,"done"],"concurrency":4,"outputPath":"/workflow/out"}`),
				def("maybe-fail", "If", `{"path":"/workflow/item","equals":2,"ifTrue":["boom"]}`),
				def("boom", "Flaky", `{"failures":-1}`),
				def("wait-all", "Block", `{}`),
				def("noop", "Const", `{}`),
				def("done", "Const", `{"value":"ok","outputPath":"/workflow/d"}`),
				def("last", "Const", `{"value":"ran"}`),
				begin(c.onError, "items", "loop", "last"),
			)
			r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
			if r.Status != c.wantStatus {
				t.Fatalf("status = %s, want %s: %s", r.Status, c.wantStatus, errorsText(r))
			}
			if len(r.Errors) != c.wantErrs || r.Errors[0].OperationID != "boom" {
				t.Fatalf("errors = %s, want one for boom", errorsText(r))
			}
			if c.wantOut != nil && !reflect.DeepEqual(r.Results["loop"], c.wantOut) {
				t.Errorf("loop output = %#v, want %#v", r.Results["loop"], c.wantOut)
			}
			if ran := f.count("last") == 1; ran != (c.onError == "continue") {
				t.Errorf("the step after the loop ran = %v", ran)
			}
		})
	}
}

func TestOnError(t *testing.T) {
	cases := []struct {
		name       string
		onError    string
		failing    []string
		wantStatus engine.Status
		wantRun    []string
	}{
		{"stop on failure", "", []string{"b"}, engine.StatusFailed, []string{"a", "b"}},
		{"explicit stop", "stop", []string{"b"}, engine.StatusFailed, []string{"a", "b"}},
		{"continue partial", "continue", []string{"b"}, engine.StatusPartial, []string{"a", "b", "c"}},
		{"continue all failed", "continue", []string{"a", "b", "c"}, engine.StatusFailed, []string{"a", "b", "c"}},
		{"continue success", "continue", nil, engine.StatusSuccess, []string{"a", "b", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			var lines []string
			for _, id := range []string{"a", "b", "c"} {
				if contains(c.failing, id) {
					lines = append(lines, def(id, "Flaky", `{"failures":-1}`))
				} else {
					lines = append(lines, def(id, "Const", `{"value":1,"outputPath":"/workflow/`+id+`"}`))
				}
			}
			lines = append(lines, begin(c.onError, "a", "b", "c"))
			r := newEngine(engine.Options{}).Run(context.Background(), compile(t, f.env(), lines...), engine.RunOptions{})
			if r.Status != c.wantStatus {
				t.Errorf("status = %s, want %s (%s)", r.Status, c.wantStatus, errorsText(r))
			}
			for _, id := range []string{"a", "b", "c"} {
				if ran := f.count(id) > 0; ran != contains(c.wantRun, id) {
					t.Errorf("%s ran = %v", id, ran)
				}
				_, inResults := r.Results[id]
				if want := contains(c.wantRun, id) && !contains(c.failing, id); inResults != want {
					t.Errorf("%s in results = %v, want %v", id, inResults, want)
				}
			}
			if len(r.Errors) != len(c.failing) {
				t.Errorf("errors = %s, want %d", errorsText(r), len(c.failing))
			}
			for _, e := range r.Errors {
				if e.Type != fault.ExecutionError || e.OperationID == "" {
					t.Errorf("error %+v lacks type or operationId", e)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestMissingPathIsDataError(t *testing.T) {
	cases := []struct {
		name  string
		input any
		want  engine.Status
	}{
		{"no input", nil, engine.StatusFailed},
		{"input without the key", map[string]any{"other": 1}, engine.StatusFailed},
		{"input with the key", map[string]any{"name": "ada"}, engine.StatusSuccess},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			plan := compile(t, f.env(),
				def("greet", "Const", `{"read":"/input/name","outputPath":"/workflow/name"}`),
				begin("", "greet"))
			r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{Input: c.input})
			if r.Status != c.want {
				t.Fatalf("status = %s, want %s (%s)", r.Status, c.want, errorsText(r))
			}
			if c.want == engine.StatusSuccess {
				if r.Results["greet"] != "ada" {
					t.Errorf("result = %#v", r.Results["greet"])
				}
				return
			}
			e := r.Errors[0]
			if e.Type != fault.DataError || e.OperationID != "greet" || !strings.Contains(e.Message, "/input/name") {
				t.Errorf("error = %+v, want a DataError naming greet and /input/name", e)
			}
		})
	}
}

func TestPanicIsRecovered(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(), def("p", "Panic", `{}`), def("after", "Const", `{}`), begin("", "p", "after"))
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusFailed || len(r.Errors) != 1 {
		t.Fatalf("status %s, errors %s", r.Status, errorsText(r))
	}
	e := r.Errors[0]
	if e.Type != fault.ExecutionError || e.OperationID != "p" || !strings.Contains(e.Message, "internal error") {
		t.Errorf("error = %+v", e)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "secret-token") {
		t.Errorf("the panic value reached the result: %s", b)
	}
	if f.count("p") != 1 || f.count("after") != 0 {
		t.Errorf("a panic must not be retried nor the run continue: %v", f.calls)
	}
}

func TestRuntimeGuards(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"unknown id in a branch", []string{
			def("c", "If", `{"path":"/workflow/x","ifTrue":["ghost"]}`),
			def("x", "Const", `{"value":true,"outputPath":"/workflow/x"}`),
			begin("", "x", "c")}, "not defined"},
		{"unknown id in a loop body", []string{
			def("x", "Const", `{"value":[1],"outputPath":"/workflow/x"}`),
			def("l", "Each", `{"inputPath":"/workflow/x","operations":["ghost"]}`),
			begin("", "x", "l")}, "not defined"},
		{"cycle through a conditional", []string{
			def("x", "Const", `{"value":true,"outputPath":"/workflow/x"}`),
			def("c", "If", `{"path":"/workflow/x","ifTrue":["d"]}`),
			def("d", "If", `{"path":"/workflow/x","ifTrue":["c"]}`),
			begin("continue", "x", "c")}, "nest deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			r := newEngine(engine.Options{}).Run(context.Background(), compile(t, f.env(), c.lines...), engine.RunOptions{})
			if r.Status == engine.StatusSuccess || len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, c.want) {
				t.Fatalf("status %s errors %s, want one containing %q", r.Status, errorsText(r), c.want)
			}
			if r.Errors[0].Type != fault.ExecutionError || r.Errors[0].OperationID == "" {
				t.Errorf("error = %+v", r.Errors[0])
			}
		})
	}
}

func TestLoopIterationLimit(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("x", "Const", `{"value":[1,2,3],"outputPath":"/workflow/x"}`),
		def("l", "Each", `{"inputPath":"/workflow/x","operations":["y"]}`),
		def("y", "Const", `{}`),
		begin("", "x", "l"))
	r := newEngine(engine.Options{Limits: engine.Limits{MaxLoopIterations: 2}}).Run(context.Background(), plan, engine.RunOptions{})
	if r.Status != engine.StatusFailed || r.Errors[0].Type != fault.DataError || r.Errors[0].OperationID != "l" {
		t.Fatalf("status %s errors %s", r.Status, errorsText(r))
	}
	if f.count("y") != 0 {
		t.Errorf("body ran %d times", f.count("y"))
	}
}

func TestCancelledContext(t *testing.T) {
	f := newFakes(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	plan := compile(t, f.env(),
		def("a", "Const", `{"value":1,"outputPath":"/workflow/a"}`),
		def("stop", "Cancel", `{}`),
		def("b", "Const", `{}`),
		begin("", "a", "stop", "b"))
	r := newEngine(engine.Options{}).Run(ctx, plan, engine.RunOptions{})
	if r.Status != engine.StatusCancelled {
		t.Fatalf("status = %s (%s)", r.Status, errorsText(r))
	}
	if f.count("b") != 0 || r.Results["a"] != float64(1) {
		t.Errorf("calls %v results %v", f.calls, r.Results)
	}
}

func TestResultJSON(t *testing.T) {
	cases := []struct {
		name string
		r    engine.Result
		want map[string]any
	}{
		{"empty", engine.Result{ExecutionID: "e", Status: engine.StatusSuccess, DurationMs: 5},
			map[string]any{"execution_id": "e", "status": "success", "results": map[string]any{}, "errors": []any{}, "duration_ms": float64(5)}},
		{"waiting", engine.Result{ExecutionID: "e", Status: engine.StatusWaiting,
			Errors:  []fault.Object{{Type: "DataError", Message: "m", OperationID: "o"}},
			Waiting: &engine.Waiting{OperationID: "ask", Reason: "r"}},
			map[string]any{"execution_id": "e", "status": "waiting", "results": map[string]any{}, "duration_ms": float64(0),
				"errors":  []any{map[string]any{"type": "DataError", "message": "m", "operationId": "o"}},
				"waiting": map[string]any{"operationId": "ask", "reason": "r"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(&c.r)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("json = %s\nwant %#v", b, c.want)
			}
			var back engine.Result
			if err := json.Unmarshal(b, &back); err != nil || back.Status != c.r.Status || back.ExecutionID != c.r.ExecutionID {
				t.Errorf("round trip = %+v, %v", back, err)
			}
		})
	}
}

func TestEventsOrder(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("a", "Const", `{"value":[1,2],"outputPath":"/workflow/a"}`),
		def("b", "Flaky", `{"failures":1,"retryable":true,"retry":{"initialDelayMs":10}}`),
		def("l", "Each", `{"inputPath":"/workflow/a","operations":["c"]}`),
		def("c", "Const", `{}`),
		begin("", "a", "b", "l"))
	rec := &recorder{}
	r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{OnEvent: rec.on})
	if r.Status != engine.StatusSuccess {
		t.Fatalf("status %s: %s", r.Status, errorsText(r))
	}
	type row struct {
		kind engine.EventKind
		op   string
		pos  string
		iter int
	}
	var got []row
	for _, ev := range rec.list() {
		it := -1
		if ev.Iteration != nil {
			it = *ev.Iteration
		}
		got = append(got, row{ev.Kind, ev.OperationID, ev.Position, it})
		if ev.ExecutionID != r.ExecutionID {
			t.Errorf("event %+v has execution id %q", ev, ev.ExecutionID)
		}
		if ev.Kind == engine.EventRetried && (ev.Attempt != 1 || ev.Error == nil || ev.Error.OperationID != "b") {
			t.Errorf("retried event = %+v", ev)
		}
	}
	want := []row{
		{engine.EventExecutionStarted, "", "", -1},
		{engine.EventStarted, "a", "0", -1}, {engine.EventFinished, "a", "0", -1},
		{engine.EventStarted, "b", "1", -1}, {engine.EventRetried, "b", "1", -1}, {engine.EventFinished, "b", "1", -1},
		{engine.EventStarted, "l", "2", -1},
		{engine.EventStarted, "c", "2/it0/0", 0}, {engine.EventFinished, "c", "2/it0/0", 0},
		{engine.EventStarted, "c", "2/it1/0", 1}, {engine.EventFinished, "c", "2/it1/0", 1},
		{engine.EventFinished, "l", "2", -1},
		{engine.EventExecutionFinished, "", "", -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events =\n%v\nwant\n%v", got, want)
	}
}

func TestLoopOutputNullForFailedIteration(t *testing.T) {
	for _, conc := range []string{"1", "3"} {
		t.Run("concurrency="+conc, func(t *testing.T) {
			f := newFakes(t)
			plan := compile(t, f.env(),
				def("items", "Const", `{"value":[{"name":"a"},{},{"name":"c"}],"outputPath":"/workflow/items"}`),
				def("loop", "Each", `{"inputPath":"/workflow/items","operations":["name"],"concurrency":`+conc+`,"outputPath":"/workflow/names"}`),
				def("name", "Const", `{"read":"/workflow/item.name","outputPath":"/workflow/name"}`),
				begin("continue", "items", "loop"))
			r := newEngine(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{})
			if r.Status != engine.StatusPartial || len(r.Errors) != 1 || r.Errors[0].Type != fault.DataError || r.Errors[0].OperationID != "name" {
				t.Fatalf("status %s errors %s", r.Status, errorsText(r))
			}
			if want := []any{"a", nil, "c"}; !reflect.DeepEqual(r.Results["loop"], want) {
				t.Errorf("loop output = %#v, want %#v", r.Results["loop"], want)
			}
		})
	}
}
