package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Bounds of the common fields. The validator checks them too; the engine checks
// again because a plan may be compiled from a document nobody validated.
const (
	maxTimeoutMs    = 24 * 60 * 60 * 1000 // one day: longer than any execution budget
	maxRetries      = 10
	maxRetryDelayMs = 60 * 60 * 1000 // one hour
)

// Compile builds a Plan from a decoded A2E workflow, constructing every defined
// operation through env (so an operation the account may not run is refused
// here, before anything runs). The first problem is returned as a *fault.Error
// naming the operation, its line and the JSON path; validation, not Compile, is
// where all problems of a document are collected.
func Compile(wf *a2e.Workflow, env *op.Environment) (*Plan, error) {
	return CompileBuilt(wf, env, nil)
}

// CompileBuilt is Compile reusing operations already built from the same
// definitions with the same env (the validator's Report.Built), so a validated
// workflow is not built twice. Operations missing from built are built here.
func CompileBuilt(wf *a2e.Workflow, env *op.Environment, built map[string]op.Operation) (*Plan, error) {
	if wf == nil {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "no workflow to compile")
	}
	if env == nil {
		return nil, fault.New(fault.Internal, "no operation environment to compile the workflow with")
	}
	plan := &Plan{Steps: make(map[string]*Step, len(wf.Operations))}
	for _, id := range definitionOrder(wf) {
		def := wf.Operations[id]
		if def == nil {
			continue
		}
		step, err := compileStep(id, def, env, built[id])
		if err != nil {
			return nil, err
		}
		plan.Steps[id] = step
	}

	begin := wf.Begin
	switch begin.OnError {
	case "", a2e.OnErrorStop:
		plan.OnError = Stop
	case a2e.OnErrorContinue:
		plan.OnError = Continue
	default:
		return nil, fault.Typed(fault.Invalid, fault.ValidationError,
			"onError must be %q or %q, got %q", a2e.OnErrorStop, a2e.OnErrorContinue, begin.OnError).
			At(wf.BeginLine, "onError")
	}
	seen := make(map[string]bool, len(begin.OperationOrder))
	for i, id := range begin.OperationOrder {
		path := fmt.Sprintf("operationOrder[%d]", i)
		if plan.Steps[id] == nil {
			return nil, fault.Typed(fault.Invalid, fault.ValidationError,
				"operationOrder names %q, which is not defined", id).
				At(wf.BeginLine, path).WithOp(id).
				WithSuggestions("Define it with an operationUpdate line before beginExecution")
		}
		if seen[id] {
			return nil, fault.Typed(fault.Invalid, fault.ValidationError,
				"operationOrder names %q twice", id).At(wf.BeginLine, path).WithOp(id)
		}
		seen[id] = true
	}
	plan.Order = slices.Clone(begin.OperationOrder)
	plan.Digest = plan.ComputeDigest()
	return plan, nil
}

// definitionOrder is wf.Defined plus, for robustness with hand-made workflows,
// any operation missing from it (sorted).
func definitionOrder(wf *a2e.Workflow) []string {
	out := slices.Clone(wf.Defined)
	var extra []string
	for id := range wf.Operations {
		if !slices.Contains(out, id) {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

func compileStep(id string, def *a2e.Definition, env *op.Environment, prebuilt op.Operation) (*Step, error) {
	name, raw := def.Operation.Name, def.Operation.Config
	base := "operation." + name
	built, err := prebuilt, error(nil)
	if built == nil {
		built, err = env.Build(name, raw)
	}
	if err != nil {
		fe := copyFault(fault.From(err))
		if fe.OperationID == "" {
			fe.OperationID = id
		}
		if fe.Line == 0 {
			fe.Line = def.Line
		}
		if fe.Path == "" {
			if env.Known(name) {
				fe.Path = base
			} else {
				fe.Path = "operation"
			}
		}
		return nil, fe
	}
	if built == nil {
		return nil, fault.New(fault.Internal, "operation %q was built as nothing", name).WithOp(id)
	}
	spec, _ := env.Spec(name)
	step := &Step{ID: id, Name: name, Line: def.Line, Op: built, Spec: spec, Config: raw}
	if err := readCommon(step, raw, base); err != nil {
		return nil, err.WithOp(id).At(def.Line, err.Path)
	}
	return step, nil
}

// commonFields are the fields of a config the engine itself acts on.
type commonFields struct {
	a2e.Common
	OutputPath *string `json:"outputPath"`
}

// readCommon fills the step's policy from the raw config.
func readCommon(step *Step, raw json.RawMessage, base string) *fault.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var c commonFields
	if err := json.Unmarshal(raw, &c); err != nil {
		path := base
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// Fields of the embedded a2e.Common are named "Common.x" by encoding/json.
			path = base + "." + strings.TrimPrefix(te.Field, "Common.")
		}
		return fault.Typed(fault.Invalid, fault.ValidationError, "%s has the wrong type", path).At(0, path)
	}
	if c.Timeout != nil {
		if *c.Timeout < 1 || *c.Timeout > maxTimeoutMs {
			return invalid(base+".timeout", "%s.timeout must be 1..%d ms, got %d", base, maxTimeoutMs, *c.Timeout)
		}
		step.Timeout = time.Duration(*c.Timeout) * time.Millisecond
	}
	if r := c.Retry; r != nil {
		if r.MaxRetries != nil {
			if *r.MaxRetries < 0 || *r.MaxRetries > maxRetries {
				return invalid(base+".retry.maxRetries", "%s.retry.maxRetries must be 0..%d, got %d", base, maxRetries, *r.MaxRetries)
			}
			n := *r.MaxRetries
			step.Retry.MaxRetries = &n
		}
		if r.InitialDelayMs != nil {
			if *r.InitialDelayMs < 0 || *r.InitialDelayMs > maxRetryDelayMs {
				return invalid(base+".retry.initialDelayMs", "%s.retry.initialDelayMs must be 0..%d, got %d", base, maxRetryDelayMs, *r.InitialDelayMs)
			}
			d := time.Duration(*r.InitialDelayMs) * time.Millisecond
			step.Retry.InitialDelay = &d
		}
		if r.MaxDelayMs != nil {
			if *r.MaxDelayMs < 0 || *r.MaxDelayMs > maxRetryDelayMs {
				return invalid(base+".retry.maxDelayMs", "%s.retry.maxDelayMs must be 0..%d, got %d", base, maxRetryDelayMs, *r.MaxDelayMs)
			}
			d := time.Duration(*r.MaxDelayMs) * time.Millisecond
			step.Retry.MaxDelay = &d
		}
	}
	step.Cache = c.Cache != nil && *c.Cache
	if c.OutputPath != nil && *c.OutputPath != "" {
		p, err := a2e.ParsePath(*c.OutputPath)
		if err != nil {
			return invalid(base+".outputPath", "%s.outputPath: %s", base, err.Error())
		}
		if p.Root != a2e.RootWorkflow {
			return invalid(base+".outputPath", "%s.outputPath must be a /workflow/ path; %s is read-only", base, p)
		}
		step.Output = &p
	}
	return nil
}

func invalid(path, format string, args ...any) *fault.Error {
	return fault.Typed(fault.Invalid, fault.ValidationError, format, args...).At(0, path)
}

// copyFault returns a shallow copy of e so that setting fields never changes an
// error value an operation may share (a package-level error, say).
func copyFault(e *fault.Error) *fault.Error {
	c := *e
	return &c
}
