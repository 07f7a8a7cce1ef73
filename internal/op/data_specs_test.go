package op_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// TestDataSpecs checks the specs of the data operations: flags, TTLs and that
// each example is a workflow that parses and builds.
func TestDataSpecs(t *testing.T) {
	regs := []op.Registration{op.FilterDataOp, op.TransformDataOp, op.MergeDataOp, op.ConditionalOp, op.LoopOp, op.WaitOp}
	for _, r := range regs {
		s := r.Spec
		if s.Name == "" || s.Summary == "" || s.Description == "" || s.Example == "" || r.New == nil {
			t.Errorf("%s: incomplete spec", s.Name)
		}
		if s.Schema != nil {
			t.Errorf("%s: Schema is filled by the lead from protocol/a2e", s.Name)
		}
		pure := s.Name == a2e.OpFilterData || s.Name == a2e.OpTransformData || s.Name == a2e.OpMergeData
		if s.Pure != pure || (s.CacheTTL > 0) != pure {
			t.Errorf("%s: Pure %v CacheTTL %v", s.Name, s.Pure, s.CacheTTL)
		}
		control := s.Name == a2e.OpConditional || s.Name == a2e.OpLoop
		if s.Control != control || s.SideEffects {
			t.Errorf("%s: Control %v SideEffects %v", s.Name, s.Control, s.SideEffects)
		}
		// The example must be a workflow whose operations all build and whose
		// order names only defined operations.
		wf, problems := a2e.Parse([]byte(s.Example), a2e.DefaultLimits())
		for _, p := range problems {
			t.Errorf("%s example: %v", s.Name, p)
		}
		env := op.NewEnvironment(dtDeps(), append(regs, op.LoadDataOp)...)
		used := false
		for _, id := range wf.Defined {
			def := wf.Operations[id]
			used = used || def.Operation.Name == s.Name
			if _, err := env.Build(def.Operation.Name, def.Operation.Config); err != nil {
				t.Errorf("%s example: %s does not build: %v", s.Name, id, err)
			}
		}
		for _, id := range wf.Begin.OperationOrder {
			if wf.Operations[id] == nil {
				t.Errorf("%s example: operationOrder names undefined %q", s.Name, id)
			}
		}
		if !used {
			t.Errorf("%s example does not use %s", s.Name, s.Name)
		}
	}
}

// TestDataOpsConcurrentRuns runs one built operation from many goroutines, as a
// Loop with concurrency does; -race checks that Run keeps no shared state.
func TestDataOpsConcurrentRuns(t *testing.T) {
	m := dtModel(t, "", map[string]string{"in": `[{"a": 2, "s": "x"}, {"a": 1, "s": "y"}, {"a": 3, "s": "x"}]`, "b": `[1, {"a": 1}]`})
	cfgs := []struct {
		reg  op.Registration
		cfg  string
		want string
	}{
		{op.FilterDataOp, `{"inputPath":"/workflow/in","conditions":[{"field":"a","operator":">=","value":2}],"outputPath":"/workflow/o"}`, `[{"a": 2, "s": "x"}, {"a": 3, "s": "x"}]`},
		{op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"map","config":{"expression":"item.s + string(index)"},"outputPath":"/workflow/o"}`, `["x0", "y1", "x2"]`},
		{op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"sort","config":{"field":"a"},"outputPath":"/workflow/o"}`, `[{"a": 1, "s": "y"}, {"a": 2, "s": "x"}, {"a": 3, "s": "x"}]`},
		{op.MergeDataOp, `{"sources":["/workflow/in","/workflow/b"],"strategy":"union","outputPath":"/workflow/o"}`, `[{"a": 2, "s": "x"}, {"a": 1, "s": "y"}, {"a": 3, "s": "x"}, 1, {"a": 1}]`},
	}
	for _, c := range cfgs {
		o := dtBuild(t, c.reg, c.cfg)
		results := make(chan any, 8)
		for range 8 {
			go func() {
				out, err := o.Run(context.Background(), dtRC(m))
				if err != nil {
					out = err
				}
				results <- out
			}()
		}
		for range 8 {
			dtWantJSON(t, <-results, c.want)
		}
	}
}
