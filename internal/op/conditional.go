package op

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// ConditionalOp chooses a branch of operations from the data model.
var ConditionalOp = Registration{
	Spec: Spec{
		Name:    a2e.OpConditional,
		Summary: "Run ifTrue or ifFalse depending on a value in the data model",
		Description: "Tests condition {path, operator, value} against the data model and runs the " +
			"operations named in ifTrue (a non-empty list) or, when the test fails, in ifFalse (optional). " +
			"Operators are those of FilterData plus exists (the path is present, even when its value is null) " +
			"and empty (missing, null, \"\", [] or {}), which take no value. A missing path reads as null for " +
			"the other operators, so {\"operator\": \">\", \"value\": 0} on a missing path is false, not an error. " +
			`value may be {"path": "/workflow/..."}. With outputPath, writes {"branch": "ifTrue"|"ifFalse"|"none"}.`,
		Control: true,
		Example: `{"type":"operationUpdate","operationId":"seed-count","operation":{"LoadData":{"storage":"sessionStorage","key":"example-count","default":3,"outputPath":"/workflow/count"}}}
{"type":"operationUpdate","operationId":"check","operation":{"Conditional":{"condition":{"path":"/workflow/count","operator":">","value":0},"ifTrue":["pause"],"outputPath":"/workflow/decision"}}}
{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":10}}}
{"type":"beginExecution","executionId":"conditional-example","operationOrder":["seed-count","check"]}
`,
	},
	New: newConditional,
}

// Branch names.
const (
	BranchTrue  = "ifTrue"
	BranchFalse = "ifFalse"
	BranchNone  = "none"
)

// operationIDPattern is the operationId grammar of the spec's schema.
var operationIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

type conditional struct {
	path    a2e.Path
	test    *Predicate
	ifTrue  []string
	ifFalse []string
	output  *a2e.Path
}

func newConditional(raw json.RawMessage, _ *Deps) (Operation, error) {
	var cfg a2e.Conditional
	if err := decodeStrict(raw, &cfg, a2e.OpConditional); err != nil {
		return nil, err
	}
	const base = "operation.Conditional"
	if err := validateCommon(cfg.Common, base); err != nil {
		return nil, err
	}
	op := &conditional{}
	var err error
	if op.path, err = parseConfigPath(cfg.Condition.Path, base+".condition.path"); err != nil {
		return nil, err
	}
	// The subject is the value found at path, so the predicate's own field is empty.
	if op.test, err = compileTest(a2e.Path{}, cfg.Condition.Operator, cfg.Condition.Value, base+".condition", a2e.ConditionOperators); err != nil {
		return nil, err
	}
	if len(cfg.IfTrue) == 0 {
		return nil, invalidConfig(base+".ifTrue", "%s.ifTrue needs at least one operation id", base).
			WithSuggestions("List the operations to run when the condition holds, for example [\"op-process\"]")
	}
	if op.ifTrue, err = checkIDs(cfg.IfTrue, base+".ifTrue"); err != nil {
		return nil, err
	}
	if op.ifFalse, err = checkIDs(cfg.IfFalse, base+".ifFalse"); err != nil {
		return nil, err
	}
	if cfg.OutputPath != "" {
		p, err := parseOutputPath(cfg.OutputPath, base+".outputPath")
		if err != nil {
			return nil, err
		}
		op.output = &p
	}
	return op, nil
}

// checkIDs validates a list of operation ids (that they exist is the
// validator's business: it sees the whole workflow).
func checkIDs(ids []string, jsonPath string) ([]string, error) {
	for i, id := range ids {
		if !operationIDPattern.MatchString(id) {
			return nil, invalidConfig(fmt.Sprintf("%s[%d]", jsonPath, i), "%q is not an operation id", id).
				WithSuggestions("Operation ids are 1 to 128 letters, digits, '_' or '-'")
		}
		if j := slices.Index(ids[:i], id); j >= 0 {
			return nil, invalidConfig(fmt.Sprintf("%s[%d]", jsonPath, i), "operation %q is listed twice (also at [%d])", id, j)
		}
	}
	return slices.Clone(ids), nil
}

// Reads are the tested path and a {"path": ...} value.
func (c *conditional) Reads() []a2e.Path {
	out := []a2e.Path{c.path}
	if r, ok := c.test.Ref(); ok {
		out = append(out, r)
	}
	return out
}

// Writes is the optional outputPath, which receives {"branch": name}.
func (c *conditional) Writes() (a2e.Path, bool) {
	if c.output == nil {
		return a2e.Path{}, false
	}
	return *c.output, true
}

// Run evaluates the condition and returns the Branch the engine runs next.
func (c *conditional) Run(ctx context.Context, rc *RunContext) (any, error) {
	out, err := c.run(ctx, rc)
	return out, withOp(err, rc.OperationID)
}

func (c *conditional) run(_ context.Context, rc *RunContext) (any, error) {
	ok, err := c.Eval(rc.Data)
	if err != nil {
		return nil, err
	}
	switch {
	case ok:
		return Branch{Name: BranchTrue, Ops: slices.Clone(c.ifTrue)}, nil
	case len(c.ifFalse) > 0:
		return Branch{Name: BranchFalse, Ops: slices.Clone(c.ifFalse)}, nil
	}
	return Branch{Name: BranchNone}, nil
}

// Eval tests the condition against data. A missing path is not an error: it
// reads as null (and exists is false).
func (c *conditional) Eval(data Data) (bool, error) {
	rhs, err := c.test.resolve(data)
	if err != nil {
		return false, err
	}
	v, err := data.Get(c.path)
	present := err == nil
	if err != nil {
		if !isMissing(err) {
			return false, err
		}
		v = nil
	}
	return c.test.test(v, present, rhs), nil
}

// isMissing tells "the path is not there" from other failures of Data.Get. The
// data model reports a missing path as a DataError; so do the test fakes.
func isMissing(err error) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && fe.SpecType() == fault.DataError
}

// BranchOutput is what a Conditional with an outputPath writes there.
func BranchOutput(b Branch) map[string]any { return map[string]any{"branch": b.Name} }
