package op

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// FilterDataOp keeps the items of an array for which every condition holds.
var FilterDataOp = Registration{
	Spec: Spec{
		Name:    a2e.OpFilterData,
		Summary: "Keep the items of an array that match every condition",
		Description: "Reads the array at inputPath and writes to outputPath a new array of the items " +
			"for which all conditions hold. A condition is {field, operator, value}: field is a path " +
			"inside the item (status, profile.age, tags[0]; empty for the item itself), operator one of " +
			"==, !=, >, <, >=, <=, in, contains, startsWith, endsWith. Numbers compare as numbers, " +
			"strings lexically; comparisons between other types are false. A missing field reads as null. " +
			`value may be {"path": "/workflow/..."} to compare against the data model.`,
		Pure:     true,
		CacheTTL: time.Minute,
		Example: `{"type":"operationUpdate","operationId":"seed-users","operation":{"LoadData":{"storage":"sessionStorage","key":"example-users","default":[{"name":"ann","status":"active","points":150},{"name":"bob","status":"inactive","points":200},{"name":"cy","status":"active","points":90}],"outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"filter-active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"},{"field":"points","operator":">","value":100}],"outputPath":"/workflow/active-users"}}}
{"type":"beginExecution","executionId":"filter-example","operationOrder":["seed-users","filter-active"]}
`,
	},
	New: newFilterData,
}

type filterData struct {
	input      a2e.Path
	output     a2e.Path
	predicates []*Predicate
}

func newFilterData(raw json.RawMessage, _ *Deps) (Operation, error) {
	var cfg a2e.FilterData
	if err := decodeStrict(raw, &cfg, a2e.OpFilterData); err != nil {
		return nil, err
	}
	const base = "operation.FilterData"
	if err := validateCommon(cfg.Common, base); err != nil {
		return nil, err
	}
	op := &filterData{}
	var err error
	if op.input, err = parseConfigPath(cfg.InputPath, base+".inputPath"); err != nil {
		return nil, err
	}
	if op.output, err = parseOutputPath(cfg.OutputPath, base+".outputPath"); err != nil {
		return nil, err
	}
	if err := countRange(len(cfg.Conditions), 1, maxConditions, base+".conditions", "conditions"); err != nil {
		return nil, err.
			WithSuggestions(`Give conditions such as {"field": "status", "operator": "==", "value": "active"}`)
	}
	for i, c := range cfg.Conditions {
		p, err := compilePredicate(c.Field, c.Operator, c.Value, fmt.Sprintf("%s.conditions[%d]", base, i), a2e.FilterOperators)
		if err != nil {
			return nil, err
		}
		op.predicates = append(op.predicates, p)
	}
	return op, nil
}

// Reads are the input array and every {"path": ...} comparison value.
func (f *filterData) Reads() []a2e.Path {
	out := []a2e.Path{f.input}
	for _, p := range f.predicates {
		if r, ok := p.Ref(); ok {
			out = append(out, r)
		}
	}
	return out
}

func (f *filterData) Writes() (a2e.Path, bool) { return f.output, true }

// maxConditions is the schema's bound on conditions.
const maxConditions = 64

// filterCheckEvery is how many items pass between context checks.
const filterCheckEvery = 4096

func (f *filterData) Run(ctx context.Context, rc *RunContext) (any, error) {
	out, err := f.run(ctx, rc)
	return out, withOp(err, rc.OperationID)
}

func (f *filterData) run(ctx context.Context, rc *RunContext) (any, error) {
	items, err := readArray(rc.Data, f.input, a2e.OpFilterData)
	if err != nil {
		return nil, err
	}
	// Resolve {"path": ...} values once, not once per item.
	rhs := make([]any, len(f.predicates))
	for i, p := range f.predicates {
		if rhs[i], err = p.resolve(rc.Data); err != nil {
			return nil, err
		}
	}
	out := make([]any, 0, len(items)/2+1)
	for i, item := range items {
		if i%filterCheckEvery == filterCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, ctxFault(err, "FilterData")
			}
		}
		keep := true
		for j, p := range f.predicates {
			v, present, _ := datamodel.Lookup(item, p.field.Segments)
			if !p.test(v, present, rhs[j]) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, item)
		}
	}
	return out, nil
}
