package op

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// LoopOp runs operations once per item of an array.
var LoopOp = Registration{
	Spec: Spec{
		Name:    a2e.OpLoop,
		Summary: "Run operations once for each item of an array",
		Description: "Reads the array at inputPath and runs the operations listed in operations once per item; " +
			"each iteration sees its item at /workflow/item and its 0-based index at /workflow/index. " +
			"outputPath receives the array of the last body operation's output per iteration, in input order. " +
			"concurrency (1 to 64, default 1) runs iterations in parallel. An array longer than maxIterations " +
			"(default: the account's loop limit, 1000 unless configured; a maxIterations above that limit is a ValidationError) is refused before anything runs.",
		Control: true,
		Example: `{"type":"operationUpdate","operationId":"seed-users","operation":{"LoadData":{"storage":"sessionStorage","key":"example-users","default":[{"name":"ann"},{"name":"bob"}],"outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"each-user","operation":{"Loop":{"inputPath":"/workflow/users","operations":["pick-name"],"outputPath":"/workflow/names"}}}
{"type":"operationUpdate","operationId":"pick-name","operation":{"TransformData":{"inputPath":"/workflow/item","transform":"select","config":{"field":"name"},"outputPath":"/workflow/name"}}}
{"type":"beginExecution","executionId":"loop-example","operationOrder":["seed-users","each-user"]}
`,
	},
	New: newLoop,
}

// maxLoopConcurrency is the schema's ceiling on concurrency.
const maxLoopConcurrency = 64

type loop struct {
	input       a2e.Path
	body        []string
	output      *a2e.Path
	concurrency int
	limit       int // iterations allowed: min(maxIterations, the account's limit)
}

func newLoop(raw json.RawMessage, d *Deps) (Operation, error) {
	var cfg a2e.Loop
	if err := decodeStrict(raw, &cfg, a2e.OpLoop); err != nil {
		return nil, err
	}
	const base = "operation.Loop"
	if err := validateCommon(cfg.Common, base); err != nil {
		return nil, err
	}
	op := &loop{}
	var err error
	if op.input, err = parseConfigPath(cfg.InputPath, base+".inputPath"); err != nil {
		return nil, err
	}
	if len(cfg.Operations) == 0 {
		return nil, invalidConfig(base+".operations", "%s.operations needs at least one operation id", base).
			WithSuggestions("List the operations to run for each item, for example [\"op-process-user\"]")
	}
	if op.body, err = checkIDs(cfg.Operations, base+".operations"); err != nil {
		return nil, err
	}
	if cfg.OutputPath != "" {
		p, err := parseOutputPath(cfg.OutputPath, base+".outputPath")
		if err != nil {
			return nil, err
		}
		op.output = &p
	}
	switch {
	case cfg.Concurrency < 0 || cfg.Concurrency > maxLoopConcurrency:
		return nil, invalidConfig(base+".concurrency", "%s.concurrency must be 1..%d, got %d", base, maxLoopConcurrency, cfg.Concurrency)
	case cfg.Concurrency == 0:
		op.concurrency = 1
	default:
		op.concurrency = cfg.Concurrency
	}
	ceiling := d.Limits.MaxLoopIterations
	if ceiling <= 0 {
		ceiling = DefaultLimits().MaxLoopIterations
	}
	switch {
	case cfg.MaxIterations < 0:
		return nil, invalidConfig(base+".maxIterations", "%s.maxIterations must be at least 1, got %d", base, cfg.MaxIterations)
	case cfg.MaxIterations > ceiling:
		// maxIterations can only lower the account's limit; asking for more is a
		// mistake worth reporting rather than silently ignoring (the validator agrees).
		return nil, invalidConfig(base+".maxIterations", "%s.maxIterations %d is above this account's loop limit of %d", base, cfg.MaxIterations, ceiling).
			WithSuggestions("Process the items in batches, or ask an administrator for a higher loop limit")
	case cfg.MaxIterations > 0:
		op.limit = cfg.MaxIterations
	default:
		op.limit = ceiling
	}
	return op, nil
}

func (l *loop) Reads() []a2e.Path { return []a2e.Path{l.input} }

// Writes is the optional outputPath, which the engine fills with the per-item results.
func (l *loop) Writes() (a2e.Path, bool) {
	if l.output == nil {
		return a2e.Path{}, false
	}
	return *l.output, true
}

// Run reads the items and returns the Iteration the engine runs.
func (l *loop) Run(ctx context.Context, rc *RunContext) (any, error) {
	out, err := l.run(ctx, rc)
	return out, withOp(err, rc.OperationID)
}

func (l *loop) run(_ context.Context, rc *RunContext) (any, error) {
	items, err := readArray(rc.Data, l.input, a2e.OpLoop)
	if err != nil {
		return nil, err
	}
	if len(items) > l.limit {
		return nil, fault.Typed(fault.Invalid, fault.DataError,
			"%s has %d items; this loop may run at most %d iterations", l.input, len(items), l.limit).
			WithDetail("path", l.input.String()).WithDetail("count", len(items)).WithDetail("limit", l.limit).
			WithSuggestions("Filter or slice the array first, or raise maxIterations within the account's limit")
	}
	return Iteration{Items: items, Body: slices.Clone(l.body), Concurrency: l.concurrency}, nil
}
