package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/internal/workflow"
)

// recorder is an Executor that keeps the request and answers a success with
// the output of the call's one step.
type recorder struct{ req execution.Request }

func (r *recorder) Execute(_ context.Context, _ *account.Principal, req execution.Request) (*execution.Outcome, error) {
	r.req = req
	return &execution.Outcome{Result: &engine.Result{Status: engine.StatusSuccess, Results: map[string]any{"call": "out"}}}, nil
}

// An op.<Operation> call hands the executor its one-step workflow as typed
// values: no JSONL document is written for it to parse back.
func TestOperationCallIsTyped(t *testing.T) {
	rec := &recorder{}
	w := &tools.Workflows{Runner: workflow.New(workflow.Config{Deps: op.Deps{Limits: op.DefaultLimits()}}), Executions: rec}
	p := &account.Principal{ID: "acct", Permissions: policy.Permissions{Operations: []string{"FilterData"}}}
	args := map[string]any{"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1.0}},
		"input": map[string]any{"xs": []any{}}}
	res, err := w.Call(context.Background(), p, "op.FilterData", args, nil)
	if err != nil || !res.Success || res.Data != "out" {
		t.Fatalf("call: %+v %v", res, err)
	}
	req := rec.req
	if len(req.Document) != 0 || req.Messages != nil {
		t.Fatalf("the call was sent as text: %q", req.Document)
	}
	wf := req.Workflow
	if wf == nil || len(wf.Defined) != 1 || wf.Defined[0] != "call" || len(wf.Begin.OperationOrder) != 1 || wf.Begin.OperationOrder[0] != "call" {
		t.Fatalf("workflow: %+v", wf)
	}
	def := wf.Operations["call"]
	var cfg map[string]any
	if err := json.Unmarshal(def.Operation.Config, &cfg); err != nil || def.Operation.Name != "FilterData" {
		t.Fatalf("operation: %s %s %v", def.Operation.Name, def.Operation.Config, err)
	}
	// "input" is the /input object, not config; the output goes where the
	// tool answers from.
	if _, isConfig := cfg["input"]; isConfig || cfg["outputPath"] != "/workflow/result" || cfg["inputPath"] != "/input/xs" {
		t.Fatalf("config: %v", cfg)
	}
	if in, _ := req.Input.(map[string]any); in == nil {
		t.Fatalf("input: %v", req.Input)
	}
	if args["input"] == nil {
		t.Fatal("the caller's arguments were changed")
	}
}
