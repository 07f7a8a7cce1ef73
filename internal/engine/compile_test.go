package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func TestCompile(t *testing.T) {
	f := newFakes(t)
	plan := compile(t, f.env(),
		def("a", "Const", `{"value":1,"outputPath":"/workflow/a[0].b","timeout":250,"cache":true,"retry":{"maxRetries":2,"initialDelayMs":50,"maxDelayMs":400}}`),
		def("b", "Flaky", `{}`),
		begin("continue", "a", "b"))
	if plan.OnError != engine.Continue || len(plan.Order) != 2 || plan.Digest == "" {
		t.Fatalf("plan = %+v", plan)
	}
	a := plan.Steps["a"]
	if a.Name != "Const" || a.Line != 1 || a.Output == nil || a.Output.String() != "/workflow/a[0].b" ||
		a.Timeout != 250*time.Millisecond || !a.Cache || !a.Spec.Pure {
		t.Errorf("step a = %+v", a)
	}
	if *a.Retry.MaxRetries != 2 || *a.Retry.InitialDelay != 50*time.Millisecond || *a.Retry.MaxDelay != 400*time.Millisecond {
		t.Errorf("retry = %+v", a.Retry)
	}
	b := plan.Steps["b"]
	if b.Output != nil || b.Timeout != 0 || b.Cache || b.Retry.MaxRetries != nil {
		t.Errorf("step b = %+v", b)
	}
	same := compile(t, f.env(),
		def("a", "Const", `{ "value": 1, "outputPath": "/workflow/a[0].b", "timeout": 250, "cache": true, "retry": {"maxRetries": 2, "initialDelayMs": 50, "maxDelayMs": 400} }`),
		def("b", "Flaky", `{}`),
		begin("continue", "a", "b"))
	if same.Digest != plan.Digest {
		t.Errorf("digest depends on formatting")
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name     string
		lines    []string
		without  string
		wantType string
		wantOp   string
		wantLine int
		wantPath string
	}{
		{"unknown operation", []string{def("a", "Const", `{}`), def("b", "Nope", `{}`), begin("", "a", "b")}, "",
			fault.ValidationError, "b", 2, "operation"},
		{"refused operation", []string{def("a", "Flaky", `{}`), begin("", "a")}, "Flaky",
			fault.PermissionError, "a", 1, "operation.Flaky"},
		{"factory error", []string{def("a", "Const", `[]`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const"},
		{"timeout out of range", []string{def("a", "Const", `{"timeout":0}`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const.timeout"},
		{"timeout of the wrong type", []string{def("a", "Const", `{"timeout":"soon"}`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const.timeout"},
		{"too many retries", []string{def("a", "Const", `{"retry":{"maxRetries":11}}`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const.retry.maxRetries"},
		{"negative delay", []string{def("a", "Const", `{"retry":{"initialDelayMs":-1}}`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const.retry.initialDelayMs"},
		{"bad outputPath", []string{def("a", "Const", `{"outputPath":"workflow/x"}`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const.outputPath"},
		{"outputPath under /input", []string{def("a", "Const", `{"outputPath":"/input/x"}`), begin("", "a")}, "",
			fault.ValidationError, "a", 1, "operation.Const.outputPath"},
		{"order names an undefined id", []string{def("a", "Const", `{}`), begin("", "a", "ghost")}, "",
			fault.ValidationError, "ghost", 2, "operationOrder[1]"},
		{"order repeats an id", []string{def("a", "Const", `{}`), begin("", "a", "a")}, "",
			fault.ValidationError, "a", 2, "operationOrder[1]"},
		{"bad onError", []string{def("a", "Const", `{}`), begin("sometimes", "a")}, "",
			fault.ValidationError, "", 2, "onError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			env := f.env()
			if c.without != "" {
				env = env.Without(c.without)
			}
			plan, err := engine.Compile(workflow(t, c.lines...), env)
			var fe *fault.Error
			if !errors.As(err, &fe) || plan != nil {
				t.Fatalf("Compile = %v, %v; want a *fault.Error", plan, err)
			}
			if fe.SpecType() != c.wantType || fe.OperationID != c.wantOp || fe.Line != c.wantLine || fe.Path != c.wantPath {
				t.Errorf("error = {type %s op %q line %d path %q: %s}, want {%s %q %d %q}",
					fe.SpecType(), fe.OperationID, fe.Line, fe.Path, fe.Message, c.wantType, c.wantOp, c.wantLine, c.wantPath)
			}
		})
	}
	if _, err := engine.Compile(nil, newFakes(t).env()); err == nil {
		t.Error("Compile(nil) succeeded")
	}
	if _, err := engine.Compile(&a2e.Workflow{}, nil); err == nil {
		t.Error("Compile without an environment succeeded")
	}
}

// safeOp is an operation of a side-effecting kind that says whether this
// instance is safe (as an ApiCall GET does).
type safeOp struct{ safe bool }

func (safeOp) Run(context.Context, *op.RunContext) (any, error) { return nil, nil }
func (s safeOp) Safe() bool                                     { return s.safe }

// planOf is a plan of steps named a, b, c...
func planOf(steps ...*engine.Step) *engine.Plan {
	p := &engine.Plan{Steps: map[string]*engine.Step{}}
	for i, st := range steps {
		p.Steps[string(rune('a'+i))] = st
	}
	return p
}

func TestPlanSideEffects(t *testing.T) {
	step := func(sideEffects bool, o op.Operation) *engine.Step {
		return &engine.Step{Spec: op.Spec{SideEffects: sideEffects}, Op: o}
	}
	cases := []struct {
		name  string
		steps []*engine.Step
		want  bool
	}{
		{"none", []*engine.Step{step(false, safeOp{})}, false},
		{"a safe instance of a side-effecting kind", []*engine.Step{step(false, nil), step(true, safeOp{safe: true})}, false},
		{"an unsafe instance", []*engine.Step{step(false, nil), step(true, safeOp{safe: false})}, true},
		{"a side-effecting kind that says nothing", []*engine.Step{step(true, nil)}, true},
	}
	for _, c := range cases {
		if got := planOf(c.steps...).SideEffects(); got != c.want {
			t.Errorf("%s: SideEffects %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPlanReplayable(t *testing.T) {
	pure := &engine.Step{Spec: op.Spec{Pure: true}}
	cases := []struct {
		name  string
		steps []*engine.Step
		want  bool
	}{
		{"data operations", []*engine.Step{pure, pure}, true},
		{"data and a safe instance (a GET: it reaches an upstream)", []*engine.Step{pure, {Spec: op.Spec{SideEffects: true}, Op: safeOp{safe: true}}}, false},
		{"an unsafe instance (a POST)", []*engine.Step{pure, {Spec: op.Spec{SideEffects: true}, Op: safeOp{safe: false}}}, false},
		{"neither pure nor effecting (a Wait, a LoadData)", []*engine.Step{pure, {Spec: op.Spec{}}}, false},
		{"a control step", []*engine.Step{pure, {Spec: op.Spec{Pure: true, Control: true}}}, false},
	}
	for _, c := range cases {
		if got := planOf(c.steps...).Replayable(); got != c.want {
			t.Errorf("%s: Replayable %v, want %v", c.name, got, c.want)
		}
	}
}
