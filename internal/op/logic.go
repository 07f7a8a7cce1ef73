package op

import (
	"context"
	"slices"

	"github.com/expr-lang/expr/ast"
)

// Expressions over named variables (A2S agent_decision logic lines such as
// `shouldPost = temperature >= threshold`) run in the same box as
// TransformData's: the variables are members of the one object an evaluation
// is given, so the sandbox, its step and byte budgets and its output
// conversion apply unchanged.

// CompileWithVars compiles src so that each name of vars reads the member of
// that name of the object passed to Eval. Other identifiers are refused, as
// in every expression. jsonPath names where src was written, for errors.
func CompileWithVars(src, jsonPath string, vars []string, lim Limits) (*Expression, error) {
	return compileExpression(src, jsonPath, lim, &varsPatcher{vars: vars})
}

// Eval runs e once with item as the object its variables come from (or as
// `item` for an expression compiled without variables) and returns a plain
// JSON value.
func (e *Expression) Eval(ctx context.Context, item any) (any, error) {
	return e.runner(ctx).eval(item, 0)
}

// varsPatcher turns a variable into item.<name>.
type varsPatcher struct{ vars []string }

func (p *varsPatcher) Visit(n *ast.Node) {
	id, ok := (*n).(*ast.IdentifierNode)
	if !ok || !slices.Contains(p.vars, id.Value) {
		return
	}
	*n = &ast.MemberNode{Node: &ast.IdentifierNode{Value: "item"}, Property: &ast.StringNode{Value: id.Value}}
}
