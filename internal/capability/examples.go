package capability

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// ExampleResult is the outcome of one of a document's examples.
type ExampleResult struct {
	Index       int            `json:"index"`
	Description string         `json:"description"`
	Pass        bool           `json:"pass"`
	Problems    []string       `json:"problems,omitempty"`
	Status      engine.Status  `json:"status,omitempty"`
	Outputs     map[string]any `json:"outputs,omitempty"`
}

// RunExamples runs each example of doc (RESOLUTIONS: examples are
// executable tests): its task outputs replace running those tasks, its inputs
// are the run's (inputs.services, the spec's stand-ins for credentials, are
// left out), and each expected output must equal the output. A request task
// without a stub is a problem unless o.NoNetwork is false (--live).
func RunExamples(ctx context.Context, e *engine.Engine, doc *a2s.Document, o Options) []ExampleResult {
	return RunExamplesEach(ctx, e, doc, o, nil)
}

// RunExamplesEach is RunExamples that hands each result to each (nil:
// none) as soon as its example has run, for a caller showing progress.
func RunExamplesEach(ctx context.Context, e *engine.Engine, doc *a2s.Document, o Options, each func(ExampleResult)) []ExampleResult {
	out := make([]ExampleResult, 0, len(doc.Examples))
	for i, ex := range doc.Examples {
		r := ExampleResult{Index: i + 1, Description: ex.Description.Value}
		r = runExample(ctx, e, doc, ex, o, r)
		out = append(out, r)
		if each != nil {
			each(r)
		}
	}
	return out
}

func runExample(ctx context.Context, e *engine.Engine, doc *a2s.Document, ex *a2s.Example, o Options, r ExampleResult) ExampleResult {
	o.Stubs = map[string]map[string]any{}
	for _, t := range ex.Tasks {
		outs, _ := t.Outputs.Interface().(map[string]any)
		if outs == nil {
			outs = map[string]any{}
		}
		o.Stubs[t.ID] = outs
	}
	inputs, _ := ex.Inputs.Interface().(map[string]any)
	if inputs == nil {
		inputs = map[string]any{}
	}
	delete(inputs, "services")
	c, err := Compile(doc, o)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}
	if err := c.CheckInputs(inputs); err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}
	res := Run(ctx, e, c, RunOptions{Inputs: inputs, Account: o.Account})
	r.Status, r.Outputs = res.Status, res.Outputs
	switch res.Status {
	case engine.StatusSuccess:
	case engine.StatusWaiting:
		task := ""
		if res.Pending != nil {
			task = res.Pending.Task
		}
		r.Problems = append(r.Problems, fmt.Sprintf("the run waits for an answer to task %q; stub its outputs in the example", task))
	default:
		for _, fe := range res.Errors {
			r.Problems = append(r.Problems, fmt.Sprintf("task %s: %s", fe.OperationID, fe.Message))
		}
		if len(res.Errors) == 0 {
			r.Problems = append(r.Problems, "the run ended "+string(res.Status))
		}
	}
	want, _ := ex.ExpectedOutputs.Interface().(map[string]any)
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		got, ok := res.Outputs[name]
		if !ok {
			r.Problems = append(r.Problems, fmt.Sprintf("output %s: the capability has no such output", name))
			continue
		}
		if !reflect.DeepEqual(got, want[name]) {
			r.Problems = append(r.Problems, fmt.Sprintf("output %s: got %s, want %s", name, mustJSON(got), mustJSON(want[name])))
		}
	}
	r.Pass = len(r.Problems) == 0
	return r
}
