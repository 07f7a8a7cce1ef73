package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/e2a"
	"github.com/sluicehq/sluice/protocol/jsonvalue"
)

// Workflows serves op.<Operation>, workflow.validate and workflow.execute.
type Workflows struct {
	Runner     *workflow.Runner
	Executions Executor
}

// Executor validates and runs workflows: an *execution.Manager.
type Executor interface {
	Execute(ctx context.Context, p *account.Principal, req execution.Request) (*execution.Outcome, error)
}

// Tool names of Workflows.
const (
	ToolValidate = "workflow.validate"
	ToolExecute  = "workflow.execute"
	opPrefix     = "op."
)

// outputParam is where an op.<Operation> call writes its output when the
// arguments name no outputPath: the tool answers with it.
const outputParam = "/workflow/result"

// Handles implements Provider.
func (w *Workflows) Handles(name string) bool {
	return name == ToolValidate || name == ToolExecute || strings.HasPrefix(name, opPrefix)
}

var (
	validateSchema = json.RawMessage(`{"type":"object","required":["workflow"],"properties":{"workflow":{"type":"string","description":"the JSONL document"}},"additionalProperties":false}`)
	executeSchema  = json.RawMessage(`{"type":"object","required":["workflow"],"properties":{"workflow":{"type":"string","description":"the JSONL document"},"input":{"type":"object","description":"read by /input/... paths"},"async":{"type":"boolean"}},"additionalProperties":false}`)
)

// List implements Provider: the workflow tools and each operation p may use
// that stands on its own (Conditional and Loop name other operations, so they
// are tools only inside a workflow).
func (w *Workflows) List(_ context.Context, p *account.Principal) ([]Tool, error) {
	out := []Tool{
		{Name: ToolValidate, Title: "Validate a workflow", Description: "Validate an A2E workflow (JSONL) on all five levels: structure, catalog, permissions, dependencies, types.",
			Input: validateSchema, Idempotent: true, Tags: []string{"workflow"}, Version: "1.0", Effects: Effects{ReadOnly: true}},
		// A workflow may hold any permitted operation: it is taken to do what
		// the most a workflow can do.
		{Name: ToolExecute, Title: "Run a workflow", Description: "Validate and run an A2E workflow (JSONL); streams each operation's progress.",
			Input: executeSchema, Streaming: true, Tags: []string{"workflow"}, Version: "1.0", Effects: Effects{Destructive: true, OpenWorld: true}},
	}
	env := w.Runner.Environment(execution.Account(p))
	for _, spec := range env.Specs() {
		if spec.Control {
			continue
		}
		desc := spec.Summary
		if spec.Description != "" {
			desc += " " + spec.Description
		}
		out = append(out, Tool{Name: opPrefix + spec.Name, Description: strings.TrimSpace(desc + " Arguments: the operation's config; an \"input\" argument is the /input object."),
			Title: spec.Name, Input: spec.Schema, Idempotent: spec.Pure || !spec.SideEffects, Tags: []string{"operation"}, Version: "1.0",
			Effects: Effects{ReadOnly: !spec.SideEffects, Destructive: spec.SideEffects, OpenWorld: spec.Remote}})
	}
	return out, nil
}

// Call implements Provider.
func (w *Workflows) Call(ctx context.Context, p *account.Principal, name string, args map[string]any, onEvent func(Event)) (*Result, error) {
	switch name {
	case ToolValidate:
		doc, err := stringArg(args, "workflow", true)
		if err != nil {
			return nil, err
		}
		if err := onlyArgs(args, "workflow"); err != nil {
			return nil, err
		}
		rep := w.Runner.Validate([]byte(doc), execution.Account(p))
		r := &Result{Success: rep.Valid, Data: rep}
		if rep.Valid {
			r.Summary = fmt.Sprintf("valid, %d warning(s)", len(rep.Warnings))
		} else {
			r.Summary, r.ErrorCode = fmt.Sprintf("not valid: %d error(s)", len(rep.Errors)), fault.CodeInvalidWorkflow
			r.Error = rep.Errors[0].Message
		}
		return r, nil
	case ToolExecute:
		doc, err := stringArg(args, "workflow", true)
		if err != nil {
			return nil, err
		}
		if err := onlyArgs(args, "workflow", "input", "async"); err != nil {
			return nil, err
		}
		async, _ := args["async"].(bool)
		return w.execute(ctx, p, execution.Request{Document: []byte(doc), Async: async}, args["input"], "", onEvent)
	}
	return w.callOperation(ctx, p, strings.TrimPrefix(name, opPrefix), args, onEvent)
}

// callOperation runs one operation as a one-step workflow: its config is the
// arguments (an "input" argument is taken out as the /input object), and its
// output the answer.
func (w *Workflows) callOperation(ctx context.Context, p *account.Principal, opName string, args map[string]any, onEvent func(Event)) (*Result, error) {
	env := w.Runner.Environment(execution.Account(p))
	spec, known := env.Spec(opName)
	switch {
	case !known || spec.Control:
		return nil, UnknownTool(opPrefix + opName)
	case !env.Allowed(opName):
		return nil, Denied(opPrefix + opName)
	}
	cfg := make(map[string]any, len(args)+1)
	for k, v := range args {
		cfg[k] = v
	}
	input := cfg["input"]
	delete(cfg, "input")
	if _, given := cfg["outputPath"]; !given && hasOutputPath(spec.Schema) {
		cfg["outputPath"] = outputParam
	}
	// The config is encoded once: operations read their config from JSON.
	// The workflow around it is built as values, never as text to be parsed.
	b, err := jsonvalue.Append(nil, cfg)
	if err != nil {
		return nil, fault.New(fault.Invalid, "arguments are not JSON: %s", err.Error())
	}
	wf := a2e.OneOperation(callStep, ids.New(ids.OperationCall), a2e.Operation{Name: opName, Config: b})
	// One operation under a fresh executionId: stored once, when it has run.
	return w.execute(ctx, p, execution.Request{Workflow: wf, StoreWhenDone: true}, input, callStep, onEvent)
}

// callStep is the operationId of an op.<Operation> call's one step.
const callStep = "call"

func hasOutputPath(schema json.RawMessage) bool {
	return strings.Contains(string(schema), `"outputPath"`)
}

// execute runs a workflow for a tool call. With only set, the answer's data
// is that operation's output; otherwise the execute response.
func (w *Workflows) execute(ctx context.Context, p *account.Principal, req execution.Request, input any, only string, onEvent func(Event)) (*Result, error) {
	if input != nil {
		if _, isObject := input.(map[string]any); !isObject {
			return nil, fault.New(fault.Invalid, "arguments.input must be an object").WithDetail("path", "arguments.input")
		}
	}
	req.Input = input
	if onEvent != nil {
		req.OnFrame = func(f *e2a.Response) {
			if !f.IsFinal {
				onEvent(Event{Kind: "progress", Data: f.Body["delta"]})
			}
		}
	}
	out, err := w.Executions.Execute(ctx, p, req)
	if err != nil {
		if inv, ok := err.(*execution.InvalidError); ok {
			e := inv.Report.Err()
			if e.Kind == fault.PermissionDenied {
				return nil, e
			}
			return &Result{Success: false, Data: inv.Report, Error: e.Message, ErrorCode: fault.CodeInvalidWorkflow,
				Summary: fmt.Sprintf("not valid: %d error(s)", len(inv.Report.Errors))}, nil
		}
		return nil, err
	}
	if out.Result == nil {
		v := out.Body()
		return &Result{Success: true, Data: v, Summary: "accepted"}, nil
	}
	res := out.Result
	r := &Result{Success: res.Status == engine.StatusSuccess, DurationMs: res.DurationMs, Data: out.Body(),
		Summary: fmt.Sprintf("execution %s %s", res.ExecutionID, res.Status)}
	if only != "" {
		r.Data = res.Results[only]
	}
	if !r.Success {
		r.ErrorCode = fault.Internal.Row().ToolCode
		if len(res.Errors) > 0 {
			r.Error = res.Errors[0].Message
			r.ErrorCode = fault.ToolCodeOfType(res.Errors[0].Type)
		}
	}
	return r, nil
}

func stringArg(args map[string]any, name string, required bool) (string, error) {
	v, ok := args[name]
	if !ok || v == nil {
		if required {
			return "", fault.New(fault.Invalid, "arguments.%s is required", name).WithDetail("path", "arguments."+name)
		}
		return "", nil
	}
	s, isString := v.(string)
	if !isString {
		return "", fault.New(fault.Invalid, "arguments.%s must be a string", name).WithDetail("path", "arguments."+name)
	}
	return s, nil
}

func onlyArgs(args map[string]any, names ...string) error {
	for k := range args {
		if !slices.Contains(names, k) {
			return fault.New(fault.Invalid, "arguments.%s is not an argument of this tool (it takes %s)", k, strings.Join(names, ", ")).
				WithDetail("path", "arguments."+k)
		}
	}
	return nil
}
