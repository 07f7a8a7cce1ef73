package op

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"

	"github.com/sluicehq/sluice/internal/fault"
)

// Expressions (TransformData map) are agent-written code, so they run in a box:
//
//   - They see `item` and `index` and nothing else: no environment functions, no
//     clock (now, date, timezone, duration are off), nothing that reaches outside.
//   - Their size is bounded: Limits.MaxExprLength characters, maxExprNodes nodes.
//   - Their time is bounded: every closure iteration (map, filter, all, ...) and
//     every allocating builtin checks the run's context, so a deadline ends even
//     one runaway evaluation, not only the gap between items; and one evaluation
//     may take at most maxExprSteps closure iterations.
//   - Their memory is bounded: expr's own budget counts ranges and literals; on top
//     of that, `+` and every builtin that allocates in proportion to its input
//     (upper, join, split, toJSON, concat, ...) are routed through sluiceCall,
//     which charges their estimated output to a per-evaluation byte budget before
//     they run. Without this, `let` doubling or a join inside a map over a range
//     could allocate terabytes from a 100-character expression. repeat is off.
//   - Results are converted to plain JSON values (ints become float64) and their
//     total size per run is bounded by maxExprOutputBytes.

const (
	maxExprNodes       = 1000
	maxExprSteps       = 1 << 17  // closure iterations per evaluation
	maxExprBytes       = 4 << 20  // charged allocation per evaluation
	maxExprMemory      = 1 << 18  // expr's own budget: elements of ranges and literals
	maxExprOutputBytes = 64 << 20 // converted output per run
	exprCheckEvery     = 64       // steps between context checks
)

// Names of the hidden functions the patcher inserts. They take $env first, so a
// caller who types them gains nothing.
const (
	fnStep = "__sluice_step"
	fnCall = "__sluice_call"
	fnAdd  = "__sluice_add"
)

// directBuiltins are used as expr ships them: closures (bounded by steps) and
// functions that allocate O(1).
var directBuiltins = []string{
	"all", "none", "any", "one", "filter", "map", "find", "findIndex", "findLast", "findLastIndex",
	"count", "sum", "groupBy", "sortBy", "reduce",
	"len", "type", "abs", "ceil", "floor", "round", "int", "float", "max", "min", "mean",
	"first", "last", "get", "indexOf", "lastIndexOf", "hasPrefix", "hasSuffix",
	"trim", "trimPrefix", "trimSuffix",
}

// chargedBuiltins allocate in proportion to their input; each has a cost
// estimate in bytes that is charged before the builtin runs.
var chargedBuiltins = map[string]func(args []any) int{
	"upper":      func(a []any) int { return 3 * strArg(a, 0) }, // case mapping may grow UTF-8
	"lower":      func(a []any) int { return 3 * strArg(a, 0) },
	"toBase64":   func(a []any) int { return 2 * strArg(a, 0) },
	"fromBase64": func(a []any) int { return strArg(a, 0) },
	"fromJSON":   func(a []any) int { return 8 * strArg(a, 0) },
	"split":      func(a []any) int { return 32 * (strArg(a, 0) + 1) },
	"splitAfter": func(a []any) int { return 32 * (strArg(a, 0) + 1) },
	"replace":    replaceCost,
	"join":       joinCost,
	"string":     func(a []any) int { return 6 * deepCost(a) },
	"toJSON":     func(a []any) int { return 6 * deepCost(a) },
	"flatten":    func(a []any) int { return deepCost(a) },
	"concat":     shallowCost,
	"keys":       shallowCost,
	"values":     shallowCost,
	"toPairs":    func(a []any) int { return 3 * shallowCost(a) },
	"fromPairs":  shallowCost,
	"reverse":    shallowCost,
	"uniq":       shallowCost,
	"sort":       shallowCost,
	"median":     shallowCost,
	"take":       shallowCost,
}

// Expression is a compiled, sandboxed expr-lang program; safe for concurrent use.
type Expression struct {
	source  string
	program *vm.Program
}

// exprEnv is all an expression sees. Only exported fields are visible to it.
type exprEnv struct {
	Item  any `expr:"item"`
	Index int `expr:"index"`

	ctx   context.Context
	steps int
	bytes int
}

// compileExpression checks and compiles src. jsonPath names the config field.
// extra patchers run before the sandbox's.
func compileExpression(src, jsonPath string, lim Limits, extra ...ast.Visitor) (*Expression, error) {
	maxLen := lim.MaxExprLength
	if maxLen <= 0 {
		maxLen = DefaultLimits().MaxExprLength
	}
	if strings.TrimSpace(src) == "" {
		return nil, invalidConfig(jsonPath, "%s is empty", jsonPath).
			WithSuggestions(`Write an expression over item and index, for example {name: item.name, score: item.points * 2}`)
	}
	if n := utf8.RuneCountInString(src); n > maxLen {
		return nil, invalidConfig(jsonPath, "%s is %d characters long; the limit is %d", jsonPath, n, maxLen).
			WithSuggestions("Split the work into several TransformData steps")
	}
	opts := []expr.Option{
		expr.Env(&exprEnv{}),
		expr.MaxNodes(maxExprNodes),
		expr.DisableAllBuiltins(),
	}
	for _, v := range extra {
		opts = append(opts, expr.Patch(v))
	}
	opts = append(opts,
		expr.Patch(&sandboxPatcher{}),
		expr.Function(fnStep, stepFn),
		expr.Function(fnCall, callFn),
		expr.Function(fnAdd, addFn),
	)
	for _, name := range directBuiltins {
		opts = append(opts, expr.EnableBuiltin(name))
	}
	prog, err := compileSafely(src, opts)
	if err != nil {
		return nil, invalidConfig(jsonPath, "%s does not compile: %s", jsonPath, err.Error()).WithCause(err).
			WithSuggestions("The expression sees item (the element) and index (its position); see https://expr-lang.org/docs/language-definition")
	}
	return &Expression{source: src, program: prog}, nil
}

// compileSafely compiles, turning a panic in the compiler into an error: the
// source is untrusted and a compiler bug must not take the process down.
func compileSafely(src string, opts []expr.Option) (prog *vm.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return expr.Compile(src, opts...)
}

// Source is the expression's text.
func (e *Expression) Source() string { return e.source }

// sandboxPatcher routes closures through the step guard and allocating
// operations through the byte budget.
type sandboxPatcher struct{}

func envNode() ast.Node { return &ast.IdentifierNode{Value: "$env"} }

func (sandboxPatcher) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.PredicateNode:
		if isCallTo(x.Node, fnStep) {
			return // already guarded
		}
		x.Node = &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnStep}, Arguments: []ast.Node{envNode(), x.Node}}
	case *ast.CallNode:
		id, ok := x.Callee.(*ast.IdentifierNode)
		if !ok {
			return
		}
		if _, charged := chargedBuiltins[id.Value]; charged {
			args := append([]ast.Node{envNode(), &ast.StringNode{Value: id.Value}}, x.Arguments...)
			*n = &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnCall}, Arguments: args}
		}
	case *ast.BinaryNode:
		// Only string + string allocates; when the checker already knows one
		// side is not a string (index + 1, x * 2 + index), leave `+` native.
		if x.Operator == "+" && mayBeString(x.Left) && mayBeString(x.Right) {
			*n = &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnAdd}, Arguments: []ast.Node{envNode(), x.Left, x.Right}}
		}
	}
}

// mayBeString: the checker typed n as a string or could not tell.
func mayBeString(n ast.Node) bool {
	t := n.Type()
	return t == nil || t.Kind() == reflect.Interface || t.Kind() == reflect.String
}

func isCallTo(n ast.Node, name string) bool {
	c, ok := n.(*ast.CallNode)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == name
}

func envArg(params []any) (*exprEnv, error) {
	if len(params) > 0 {
		if e, ok := params[0].(*exprEnv); ok {
			return e, nil
		}
	}
	return nil, errors.New("internal function called without its environment")
}

// tick counts one step and checks the deadline now and then.
func (e *exprEnv) tick() error {
	e.steps++
	if e.steps > maxExprSteps {
		return fmt.Errorf("expression exceeded %d iterations", maxExprSteps)
	}
	if e.steps%exprCheckEvery == 0 && e.ctx != nil {
		return e.ctx.Err()
	}
	return nil
}

func (e *exprEnv) charge(n int) error {
	e.bytes += n
	if e.bytes > maxExprBytes || n < 0 {
		return fmt.Errorf("expression exceeded its memory budget of %d bytes", maxExprBytes)
	}
	return nil
}

// stepFn(env, v) guards one closure iteration and passes v through.
func stepFn(params ...any) (any, error) {
	e, err := envArg(params)
	if err != nil || len(params) != 2 {
		return nil, errors.New("bad step call")
	}
	if err := e.tick(); err != nil {
		return nil, err
	}
	return params[1], nil
}

// addFn(env, a, b) is expr's `+` with strings charged to the budget.
func addFn(params ...any) (any, error) {
	e, err := envArg(params)
	if err != nil || len(params) != 3 {
		return nil, errors.New("bad add call")
	}
	a, b := params[1], params[2]
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			if err := e.charge(len(sa) + len(sb)); err != nil {
				return nil, err
			}
			return sa + sb, nil
		}
	}
	return runtime.Add(a, b), nil // panics on bad operands; expr's VM turns that into an error
}

// callFn(env, name, args...) runs a charged builtin after charging its cost.
func callFn(params ...any) (out any, err error) {
	e, err := envArg(params)
	if err != nil || len(params) < 2 {
		return nil, errors.New("bad builtin call")
	}
	name, _ := params[1].(string)
	cost, ok := chargedBuiltins[name]
	if !ok {
		return nil, fmt.Errorf("function %q is not available", name)
	}
	args := params[2:]
	if err := e.tick(); err != nil {
		return nil, err
	}
	if err := e.charge(cost(args)); err != nil {
		return nil, err
	}
	// The builtins trust the type checker, which cannot see through the patch;
	// a wrong argument panics inside them. Say which function it was.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%s: invalid arguments (%v)", name, r)
		}
	}()
	b := builtin.Builtins[builtin.Index[name]]
	switch {
	case b.Fast != nil && len(args) == 1:
		return b.Fast(args[0]), nil
	case b.Func != nil:
		return b.Func(args...)
	case b.Safe != nil:
		v, _, err := b.Safe(args...)
		return v, err
	}
	return nil, fmt.Errorf("function %q cannot be called here", name)
}

func strArg(args []any, i int) int {
	if i < len(args) {
		if s, ok := args[i].(string); ok {
			return len(s)
		}
	}
	return 0
}

func replaceCost(args []any) int {
	if len(args) < 3 {
		return strArg(args, 0)
	}
	s, _ := args[0].(string)
	old, _ := args[1].(string)
	repl, _ := args[2].(string)
	n := len(s) + 1
	if old != "" {
		n = strings.Count(s, old)
	}
	return len(s) + n*len(repl)
}

func joinCost(args []any) int {
	glue := strArg(args, 1)
	total := 0
	if len(args) > 0 {
		rv := reflect.ValueOf(args[0])
		if rv.Kind() == reflect.Slice {
			for i := 0; i < rv.Len(); i++ {
				if s, ok := rv.Index(i).Interface().(string); ok {
					total += len(s)
				}
				total += glue
				if total > maxExprBytes {
					return total
				}
			}
		}
	}
	return total
}

// shallowCost counts the slots of the arrays and maps among args.
func shallowCost(args []any) int {
	total := 0
	for _, a := range args {
		rv := reflect.ValueOf(a)
		switch rv.Kind() {
		case reflect.Slice, reflect.Array:
			total += 16 * rv.Len()
		case reflect.Map:
			total += 64 * rv.Len()
		case reflect.String:
			total += rv.Len()
		}
	}
	return total
}

// deepCost is the size of args' contents, stopping once past the budget.
func deepCost(args []any) int {
	total := 0
	for _, a := range args {
		total += sizeOf(reflect.ValueOf(a), maxExprBytes-total+1, 0)
		if total > maxExprBytes {
			break
		}
	}
	return total
}

func sizeOf(rv reflect.Value, limit, depth int) int {
	if depth > 200 {
		return limit + 1
	}
	switch rv.Kind() {
	case reflect.Interface, reflect.Pointer:
		if rv.IsNil() {
			return 4
		}
		return sizeOf(rv.Elem(), limit, depth+1)
	case reflect.String:
		return len(rv.String()) + 2
	case reflect.Slice, reflect.Array:
		n := 16
		for i := 0; i < rv.Len() && n <= limit; i++ {
			n += 16 + sizeOf(rv.Index(i), limit-n, depth+1)
		}
		return n
	case reflect.Map:
		n := 64
		it := rv.MapRange()
		for it.Next() && n <= limit {
			n += 48 + sizeOf(it.Key(), limit-n, depth+1) + sizeOf(it.Value(), limit-n, depth+1)
		}
		return n
	}
	return 8
}

// exprRunner evaluates one Expression many times on one goroutine, reusing its
// VM and environment.
type exprRunner struct {
	expr    *Expression
	machine vm.VM
	env     exprEnv
	output  int // bytes of converted output so far
}

func (e *Expression) runner(ctx context.Context) *exprRunner {
	r := &exprRunner{expr: e}
	r.machine.MemoryBudget = maxExprMemory
	r.env.ctx = ctx
	return r
}

// eval runs the expression on one element and returns a plain JSON value.
func (r *exprRunner) eval(item any, index int) (any, error) {
	r.env.Item, r.env.Index, r.env.steps, r.env.bytes = item, index, 0, 0
	out, err := r.machine.Run(r.expr.program, &r.env)
	r.env.Item = nil
	if err != nil {
		if ctxErr := r.env.ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, err
	}
	v, _, err := toJSONValue(out, &r.output)
	return v, err
}

// toJSONValue converts an expression result to a plain JSON value, adding its
// size to *size and failing past maxExprOutputBytes. changed reports whether v
// had to be rebuilt: values that are already plain JSON are returned as they are
// (they are shared, never modified).
func toJSONValue(v any, size *int) (out any, changed bool, err error) {
	*size += 8
	if *size > maxExprOutputBytes {
		return nil, false, fmt.Errorf("expression results exceed %d bytes", maxExprOutputBytes)
	}
	switch x := v.(type) {
	case nil, bool:
		return v, false, nil
	case string:
		*size += len(x)
		return v, false, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false, fmt.Errorf("expression produced %v, which JSON cannot hold", x)
		}
		return v, false, nil
	case []any:
		var cp []any
		for i, e := range x {
			ne, ch, err := toJSONValue(e, size)
			if err != nil {
				return nil, false, err
			}
			if ch && cp == nil {
				cp = make([]any, len(x))
				copy(cp, x[:i])
			}
			if cp != nil {
				cp[i] = ne
			}
		}
		if cp == nil {
			return v, false, nil
		}
		return cp, true, nil
	case map[string]any:
		var cp map[string]any
		for k, e := range x {
			*size += len(k)
			ne, ch, err := toJSONValue(e, size)
			if err != nil {
				return nil, false, err
			}
			if ch && cp == nil {
				cp = make(map[string]any, len(x))
				for k2, e2 := range x {
					cp[k2] = e2
				}
			}
			if cp != nil {
				cp[k] = ne
			}
		}
		if cp == nil {
			return v, false, nil
		}
		return cp, true, nil
	}
	if f, ok := number(v); ok {
		out, _, err := toJSONValue(f, size)
		return out, true, err
	}
	return reflectJSON(v, size)
}

// reflectJSON converts typed Go containers and numbers ([]int, []string,
// map[string]int, uint8, ...) that expr builtins return.
func reflectJSON(v any, size *int) (any, bool, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true, nil
	case reflect.Float32, reflect.Float64:
		out, _, err := toJSONValue(rv.Float(), size)
		return out, true, err
	case reflect.String:
		*size += rv.Len()
		return rv.String(), true, nil
	case reflect.Bool:
		return rv.Bool(), true, nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return []any{}, true, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			e, _, err := toJSONValue(rv.Index(i).Interface(), size)
			if err != nil {
				return nil, false, err
			}
			out[i] = e
		}
		return out, true, nil
	case reflect.Map:
		// groupBy returns map[any][]any: keys become text as in TransformData group.
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			k := keyText(it.Key().Interface())
			*size += len(k)
			e, _, err := toJSONValue(it.Value().Interface(), size)
			if err != nil {
				return nil, false, err
			}
			out[k] = e
		}
		return out, true, nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, true, nil
		}
	}
	return nil, false, fmt.Errorf("expression produced a %T, which is not a JSON value", v)
}

// exprFault turns an evaluation failure on element index into a public error.
func exprFault(err error, e *Expression, index int, inputPath fmt.Stringer) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fault.Typed(fault.Timeout, fault.TimeoutError, "map expression ran out of time at element %d", index).
			WithCause(err).WithDetail("path", inputPath.String()).
			WithSuggestions("Simplify the expression or work on a smaller input")
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fault.Typed(fault.Invalid, fault.DataError, "map expression failed on element %d of %s: %s", index, inputPath, err.Error()).
		WithCause(err).WithDetail("path", inputPath.String()).WithDetail("index", index).
		WithDetail("expression", e.source)
}
