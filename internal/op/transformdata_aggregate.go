package op

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Aggregations (a2e.AggregationOps): sum, avg, min and max use numbers only and
// skip everything else (min and max of strings are not defined: a mixed column
// would order differently depending on which types happen to be present).

type aggOp struct {
	kind     string
	field    a2e.Path
	hasField bool
	as       string
}

type aggregateTransform struct {
	ops      []aggOp
	groupBy  *a2e.Path
	groupKey string // the key a group row holds its group value under
}

func newAggregate(raw json.RawMessage) (transformer, error) {
	var c a2e.AggregateConfig
	if err := decodeTransformConfig(raw, &c, a2e.TransformAggregate); err != nil {
		return nil, err
	}
	if err := countRange(len(c.Operations), 1, maxAggregations, configBase+".operations", "operations"); err != nil {
		return nil, err.WithSuggestions(`Write {"operations": [{"op": "count"}, {"op": "sum", "field": "amount"}]}`)
	}
	at := &aggregateTransform{}
	names := map[string]string{} // output key -> JSON path that claimed it
	if c.GroupBy != "" {
		g, err := parseItemField(c.GroupBy, configBase+".groupBy", false)
		if err != nil {
			return nil, err
		}
		at.groupBy = &g
		k, ok := lastKey(g)
		if !ok {
			k = c.GroupBy
		}
		at.groupKey = k
		names[k] = configBase + ".groupBy"
	}
	for i, o := range c.Operations {
		jp := fmt.Sprintf("%s.operations[%d]", configBase, i)
		if err := oneOf(o.Op, a2e.AggregationOps, jp+".op", "aggregation"); err != nil {
			return nil, err
		}
		op := aggOp{kind: o.Op, as: o.As}
		if o.Field != "" {
			f, err := parseItemField(o.Field, jp+".field", false)
			if err != nil {
				return nil, err
			}
			op.field, op.hasField = f, true
		} else if o.Op != a2e.AggCount {
			return nil, invalidConfig(jp+".field", "%s needs a field", o.Op).
				WithSuggestions(fmt.Sprintf(`Write {"op": %q, "field": "amount"}`, o.Op))
		}
		if op.as == "" {
			op.as = o.Op
			if op.hasField {
				op.as = o.Op + "_" + o.Field
			}
		}
		if prev, dup := names[op.as]; dup {
			return nil, invalidConfig(jp+".as", "output key %q is already used by %s", op.as, prev).
				WithSuggestions("Give each operation a distinct as")
		}
		names[op.as] = jp
		at.ops = append(at.ops, op)
	}
	return at, nil
}

// accumulator holds one aggregation's running state.
type accumulator struct {
	count    int
	sum      float64
	n        int // numbers seen
	min, max float64
}

func (a *accumulator) add(op *aggOp, item any) {
	if !op.hasField {
		a.count++
		return
	}
	v, present, _ := datamodel.Lookup(item, op.field.Segments)
	if present && v != nil {
		a.count++
	}
	f, ok := number(v)
	if !ok {
		return
	}
	if a.n == 0 || f < a.min {
		a.min = f
	}
	if a.n == 0 || f > a.max {
		a.max = f
	}
	a.n++
	a.sum += f
}

func (a *accumulator) result(kind string) any {
	switch kind {
	case a2e.AggCount:
		return float64(a.count)
	case a2e.AggSum:
		return a.sum
	}
	if a.n == 0 {
		return nil
	}
	switch kind {
	case a2e.AggAvg:
		return a.sum / float64(a.n)
	case a2e.AggMin:
		return a.min
	}
	return a.max
}

type aggGroup struct {
	key  any
	accs []accumulator
}

func (at *aggregateTransform) apply(ctx context.Context, in any, input a2e.Path) (any, error) {
	items, err := needArray(in, input, a2e.TransformAggregate)
	if err != nil {
		return nil, err
	}
	if at.groupBy == nil {
		accs := make([]accumulator, len(at.ops))
		for i, item := range items {
			if err := checkEvery(ctx, i, "TransformData aggregate"); err != nil {
				return nil, err
			}
			for j := range at.ops {
				accs[j].add(&at.ops[j], item)
			}
		}
		return at.row(nil, accs), nil
	}
	var order []*aggGroup // first-seen order
	index := map[string]*aggGroup{}
	for i, item := range items {
		if err := checkEvery(ctx, i, "TransformData aggregate"); err != nil {
			return nil, err
		}
		kv, _, _ := datamodel.Lookup(item, at.groupBy.Segments)
		kt := keyText(kv)
		g := index[kt]
		if g == nil {
			g = &aggGroup{key: kv, accs: make([]accumulator, len(at.ops))}
			index[kt] = g
			order = append(order, g)
		}
		for j := range at.ops {
			g.accs[j].add(&at.ops[j], item)
		}
	}
	out := make([]any, len(order))
	for i, g := range order {
		out[i] = at.row(g, g.accs)
	}
	return out, nil
}

func (at *aggregateTransform) row(g *aggGroup, accs []accumulator) map[string]any {
	row := make(map[string]any, len(at.ops)+1)
	if g != nil {
		row[at.groupKey] = g.key
	}
	for j := range at.ops {
		row[at.ops[j].as] = accs[j].result(at.ops[j].kind)
	}
	return row
}

// checkEvery checks ctx once every filterCheckEvery items.
func checkEvery(ctx context.Context, i int, what string) error {
	if i%filterCheckEvery != filterCheckEvery-1 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return ctxFault(err, what)
	}
	return nil
}
