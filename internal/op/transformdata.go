package op

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// TransformDataOp reshapes data: sort, select, group, aggregate or map.
var TransformDataOp = Registration{
	Spec: Spec{
		Name:    a2e.OpTransformData,
		Summary: "Sort, select, group, aggregate or map data",
		Description: "Reads inputPath, applies one transform and writes the result to outputPath. " +
			"sort {field, order: asc|desc}: stable; numbers < strings < booleans < arrays < objects; " +
			"missing or null fields last in both orders. " +
			"select {fields: [path...]}: projects each object (or the one object) to those fields, keyed by " +
			"the last key of each path (the whole path text when that key is an index or shared by two paths); " +
			"missing fields are left out. select {field: path}: the value at path in each element (or the object), null when missing. " +
			"group {field}: an object from each key as text (strings as they are, other values in JSON form, missing as \"null\") " +
			"to the array of its items, in input order. " +
			"aggregate {operations: [{op: count|sum|avg|min|max, field, as}], groupBy}: one object, or one row per " +
			"group in first-seen order with the group's key under groupBy's last key name; sum, avg, min and max " +
			"use numbers only (sum of none is 0, avg/min/max of none is null); count without field counts items, " +
			"with field the items where it is present and not null; as defaults to <op>_<field> or count. " +
			"map {expression}: an expr-lang expression per element with item and index bound; " +
			"map {fields: {outKey: path}}: a new object per element. select and map also take one object.",
		Pure:     true,
		CacheTTL: time.Minute,
		Example: `{"type":"operationUpdate","operationId":"seed-users","operation":{"LoadData":{"storage":"sessionStorage","key":"example-users","default":[{"name":"ann","points":150},{"name":"bob","points":200},{"name":"cy","points":90}],"outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"rank","operation":{"TransformData":{"inputPath":"/workflow/users","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/ranked"}}}
{"type":"operationUpdate","operationId":"names","operation":{"TransformData":{"inputPath":"/workflow/ranked","transform":"map","config":{"expression":"upper(item.name)"},"outputPath":"/workflow/names"}}}
{"type":"beginExecution","executionId":"transform-example","operationOrder":["seed-users","rank","names"]}
`,
	},
	New: newTransformData,
}

// transformer is one configured transform; in is the value read at inputPath.
type transformer interface {
	apply(ctx context.Context, in any, input a2e.Path) (any, error)
}

type transformData struct {
	input  a2e.Path
	output a2e.Path
	t      transformer
}

const transformBase = "operation.TransformData"

// Bounds from the published schema.
const (
	maxSelectFields = 256
	maxMapFields    = 256
	maxAggregations = 64
)

func newTransformData(raw json.RawMessage, d *Deps) (Operation, error) {
	var cfg a2e.TransformData
	if err := decodeStrict(raw, &cfg, a2e.OpTransformData); err != nil {
		return nil, err
	}
	if err := validateCommon(cfg.Common, transformBase); err != nil {
		return nil, err
	}
	op := &transformData{}
	var err error
	if op.input, err = parseConfigPath(cfg.InputPath, transformBase+".inputPath"); err != nil {
		return nil, err
	}
	if op.output, err = parseOutputPath(cfg.OutputPath, transformBase+".outputPath"); err != nil {
		return nil, err
	}
	if err := oneOf(cfg.Transform, a2e.TransformNames, transformBase+".transform", "transform"); err != nil {
		return nil, err
	}
	lim := d.Limits
	switch cfg.Transform {
	case a2e.TransformSort:
		op.t, err = newSort(cfg.Config)
	case a2e.TransformSelect:
		op.t, err = newSelect(cfg.Config)
	case a2e.TransformGroup:
		op.t, err = newGroup(cfg.Config)
	case a2e.TransformAggregate:
		op.t, err = newAggregate(cfg.Config)
	case a2e.TransformMap:
		op.t, err = newMap(cfg.Config, lim)
	}
	if err != nil {
		return nil, err
	}
	return op, nil
}

func (t *transformData) Reads() []a2e.Path        { return []a2e.Path{t.input} }
func (t *transformData) Writes() (a2e.Path, bool) { return t.output, true }

func (t *transformData) Run(ctx context.Context, rc *RunContext) (any, error) {
	out, err := t.run(ctx, rc)
	return out, withOp(err, rc.OperationID)
}

func (t *transformData) run(ctx context.Context, rc *RunContext) (any, error) {
	in, err := rc.Data.Get(t.input)
	if err != nil {
		return nil, err
	}
	return t.t.apply(ctx, in, t.input)
}

const configBase = transformBase + ".config"

// decodeTransformConfig decodes the config object of one transform.
func decodeTransformConfig(raw json.RawMessage, cfg any, transform string) error {
	return decodeStrictAt(raw, cfg, configBase, "transform "+transform)
}

// needArray is the DataError for a transform given something else.
func needArray(in any, input a2e.Path, transform string) ([]any, error) {
	arr, ok := in.([]any)
	if !ok {
		return nil, dataError(input, "%s is %s, TransformData %s needs an array", input, datamodel.KindOf(in), transform)
	}
	return arr, nil
}

// ---- sort

type sortTransform struct {
	field a2e.Path
	desc  bool
}

func newSort(raw json.RawMessage) (transformer, error) {
	var c a2e.SortConfig
	if err := decodeTransformConfig(raw, &c, a2e.TransformSort); err != nil {
		return nil, err
	}
	f, err := parseItemField(c.Field, configBase+".field", true)
	if err != nil {
		return nil, err
	}
	if c.Order == "" {
		c.Order = "asc"
	}
	if err := oneOf(c.Order, []string{"asc", "desc"}, configBase+".order", "order"); err != nil {
		return nil, err
	}
	return &sortTransform{field: f, desc: c.Order == "desc"}, nil
}

// sortKey is an item's sort field, decoded once so comparisons do no lookups.
type sortKey struct {
	rank int
	num  float64
	str  string
	b    bool
	idx  int // input position: the tie-break that makes the sort stable
}

func (s *sortTransform) apply(ctx context.Context, in any, input a2e.Path) (any, error) {
	items, err := needArray(in, input, a2e.TransformSort)
	if err != nil {
		return nil, err
	}
	if out, ok, err := s.sortNumbers(ctx, items); ok || err != nil {
		return out, err
	}
	keys := make([]sortKey, len(items))
	for i, item := range items {
		if err := checkEvery(ctx, i, "TransformData sort"); err != nil {
			return nil, err
		}
		v, present, _ := datamodel.Lookup(item, s.field.Segments)
		k := sortKey{rank: sortRank(v, present), idx: i}
		switch k.rank {
		case 0:
			k.num, _ = number(v)
		case 1:
			k.str = v.(string)
		case 2:
			k.b = v.(bool)
		}
		keys[i] = k
	}
	// The sort itself cannot stop half-way: the context is checked before it.
	if err := ctx.Err(); err != nil {
		return nil, ctxFault(err, "TransformData sort")
	}
	// pdqsort with the input position as the last key is stable and faster
	// than a merge-based stable sort on these 56-byte keys.
	slices.SortFunc(keys, func(a, b sortKey) int {
		var c int
		// Missing and null sort last whatever the order.
		if a.rank == 5 || b.rank == 5 {
			c = cmpInt(btoi(a.rank == 5), btoi(b.rank == 5))
		} else {
			c = compareKeys(&a, &b)
			if s.desc {
				c = -c
			}
		}
		if c == 0 {
			c = cmpInt(a.idx, b.idx)
		}
		return c
	})
	out := make([]any, len(keys))
	for i := range keys {
		out[i] = items[keys[i].idx]
	}
	return out, nil
}

// numKey is the sort key of the common case: a field that is a number
// wherever it is present.
type numKey struct {
	f   float64
	idx int
}

// sortNumbers sorts items whose field is a number or missing/null; ok is
// false when another type turns up and the general path must run.
func (s *sortTransform) sortNumbers(ctx context.Context, items []any) ([]any, bool, error) {
	keys := make([]numKey, 0, len(items))
	var last []int // missing or null: after the rest, in input order
	for i, item := range items {
		if err := checkEvery(ctx, i, "TransformData sort"); err != nil {
			return nil, false, err
		}
		v, _, _ := datamodel.Lookup(item, s.field.Segments)
		if v == nil {
			last = append(last, i)
			continue
		}
		f, ok := v.(float64)
		if !ok {
			return nil, false, nil
		}
		keys = append(keys, numKey{f, i})
	}
	if err := ctx.Err(); err != nil {
		return nil, false, ctxFault(err, "TransformData sort")
	}
	slices.SortFunc(keys, func(a, b numKey) int {
		switch {
		case a.f < b.f:
			return s.sign(-1)
		case a.f > b.f:
			return s.sign(1)
		}
		return cmpInt(a.idx, b.idx)
	})
	out := make([]any, 0, len(items))
	for _, k := range keys {
		out = append(out, items[k.idx])
	}
	for _, i := range last {
		out = append(out, items[i])
	}
	return out, true, nil
}

func (s *sortTransform) sign(c int) int {
	if s.desc {
		return -c
	}
	return c
}

func compareKeys(a, b *sortKey) int {
	if a.rank != b.rank {
		return cmpInt(a.rank, b.rank)
	}
	switch a.rank {
	case 0:
		switch {
		case a.num < b.num:
			return -1
		case a.num > b.num:
			return 1
		}
	case 1:
		return strings.Compare(a.str, b.str)
	case 2:
		return cmpInt(btoi(a.b), btoi(b.b))
	}
	return 0 // arrays with arrays, objects with objects: equal, the stable order stays
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---- select

type selectTransform struct {
	// one field: extract its value
	one    *a2e.Path
	fields []a2e.Path
	keys   []string
}

func newSelect(raw json.RawMessage) (transformer, error) {
	var c a2e.SelectConfig
	if err := decodeTransformConfig(raw, &c, a2e.TransformSelect); err != nil {
		return nil, err
	}
	switch {
	case c.Fields != nil && c.Field != "":
		return nil, invalidConfig(configBase, "select takes fields or field, not both").
			WithSuggestions("Use fields to project objects, field to extract one value")
	case c.Field != "":
		f, err := parseItemField(c.Field, configBase+".field", false)
		if err != nil {
			return nil, err
		}
		return &selectTransform{one: &f}, nil
	case c.Fields == nil:
		return nil, invalidConfig(configBase, "select needs fields or field").
			WithSuggestions(`Write {"fields": ["name", "profile.age"]} or {"field": "profile.age"}`)
	}
	if err := countRange(len(c.Fields), 1, maxSelectFields, configBase+".fields", "fields"); err != nil {
		return nil, err
	}
	st := &selectTransform{}
	lastCount := map[string]int{}
	for i, s := range c.Fields {
		f, err := parseItemField(s, fmt.Sprintf("%s.fields[%d]", configBase, i), false)
		if err != nil {
			return nil, err
		}
		st.fields = append(st.fields, f)
		if k, ok := lastKey(f); ok {
			lastCount[k]++
		}
	}
	// Output keys: the last key of the path, unless it is an index or two paths
	// share it; then the path as written, so no field silently overwrites another.
	seen := map[string]int{}
	for i, f := range st.fields {
		k, ok := lastKey(f)
		if !ok || lastCount[k] > 1 {
			k = c.Fields[i]
		}
		if j, dup := seen[k]; dup {
			return nil, invalidConfig(fmt.Sprintf("%s.fields[%d]", configBase, i), "field %q is selected twice (also fields[%d])", c.Fields[i], j)
		}
		seen[k] = i
		st.keys = append(st.keys, k)
	}
	return st, nil
}

// lastKey is the final object key of a field path; false when it ends in an index.
func lastKey(p a2e.Path) (string, bool) {
	if len(p.Segments) == 0 {
		return "", false
	}
	s := p.Segments[len(p.Segments)-1]
	return s.Key, !s.IsIndex
}

func (s *selectTransform) apply(ctx context.Context, in any, input a2e.Path) (any, error) {
	if obj, ok := in.(map[string]any); ok {
		return s.one1(obj, input, -1)
	}
	items, ok := in.([]any)
	if !ok {
		return nil, dataError(input, "%s is %s, TransformData select needs an array or an object", input, datamodel.KindOf(in))
	}
	out := make([]any, len(items))
	for i, item := range items {
		if i%filterCheckEvery == filterCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, ctxFault(err, "TransformData select")
			}
		}
		v, err := s.one1(item, input, i)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// one1 selects from one element (index -1: the input itself).
func (s *selectTransform) one1(item any, input a2e.Path, index int) (any, error) {
	if s.one != nil {
		v, _, _ := datamodel.Lookup(item, s.one.Segments)
		return v, nil
	}
	if _, ok := item.(map[string]any); !ok {
		return nil, dataError(input, "element %d of %s is %s, select with fields needs objects", index, input, datamodel.KindOf(item)).
			WithDetail("index", index).WithSuggestions("Use select with field to extract a value from other elements")
	}
	out := make(map[string]any, len(s.fields))
	for i, f := range s.fields {
		if v, ok, _ := datamodel.Lookup(item, f.Segments); ok {
			out[s.keys[i]] = v
		}
	}
	return out, nil
}

// ---- group

type groupTransform struct{ field a2e.Path }

func newGroup(raw json.RawMessage) (transformer, error) {
	var c a2e.GroupConfig
	if err := decodeTransformConfig(raw, &c, a2e.TransformGroup); err != nil {
		return nil, err
	}
	f, err := parseItemField(c.Field, configBase+".field", true)
	if err != nil {
		return nil, err
	}
	return &groupTransform{field: f}, nil
}

func (g *groupTransform) apply(ctx context.Context, in any, input a2e.Path) (any, error) {
	items, err := needArray(in, input, a2e.TransformGroup)
	if err != nil {
		return nil, err
	}
	groups := map[string][]any{}
	for i, item := range items {
		if err := checkEvery(ctx, i, "TransformData group"); err != nil {
			return nil, err
		}
		v, _, _ := datamodel.Lookup(item, g.field.Segments)
		k := keyText(v)
		groups[k] = append(groups[k], item)
	}
	out := make(map[string]any, len(groups))
	for k, v := range groups {
		out[k] = v
	}
	return out, nil
}

// ---- map

type mapTransform struct {
	expr    *Expression
	timeout time.Duration
	// fields form: output keys in sorted order (deterministic) and their paths
	keys  []string
	paths []a2e.Path
}

func newMap(raw json.RawMessage, lim Limits) (transformer, error) {
	var c a2e.MapConfig
	if err := decodeTransformConfig(raw, &c, a2e.TransformMap); err != nil {
		return nil, err
	}
	switch {
	case c.Expression != "" && c.Fields != nil:
		return nil, invalidConfig(configBase, "map takes expression or fields, not both")
	case c.Expression != "":
		e, err := compileExpression(c.Expression, configBase+".expression", lim)
		if err != nil {
			return nil, err
		}
		timeout := lim.ExprTimeout
		if timeout <= 0 {
			timeout = DefaultLimits().ExprTimeout
		}
		return &mapTransform{expr: e, timeout: timeout}, nil
	case c.Fields == nil:
		return nil, invalidConfig(configBase, "map needs expression or fields").
			WithSuggestions(`Write {"expression": "item.price * 2"} or {"fields": {"name": "user.name"}}`)
	}
	if err := countRange(len(c.Fields), 1, maxMapFields, configBase+".fields", "fields"); err != nil {
		return nil, err
	}
	m := &mapTransform{}
	for k := range c.Fields {
		m.keys = append(m.keys, k)
	}
	sort.Strings(m.keys)
	for _, k := range m.keys {
		if k == "" {
			return nil, invalidConfig(configBase+".fields", "map fields need non-empty output keys")
		}
		p, err := parseItemField(c.Fields[k], configBase+".fields."+k, true)
		if err != nil {
			return nil, err
		}
		m.paths = append(m.paths, p)
	}
	return m, nil
}

func (m *mapTransform) apply(ctx context.Context, in any, input a2e.Path) (any, error) {
	items, isArray := in.([]any)
	if !isArray {
		if _, ok := in.(map[string]any); !ok {
			return nil, dataError(input, "%s is %s, TransformData map needs an array or an object", input, datamodel.KindOf(in))
		}
		items = []any{in}
	}
	var out []any
	var err error
	if m.expr != nil {
		out, err = m.applyExpr(ctx, items, input)
	} else {
		out, err = m.applyFields(ctx, items)
	}
	if err != nil {
		return nil, err
	}
	if !isArray {
		return out[0], nil
	}
	return out, nil
}

func (m *mapTransform) applyFields(ctx context.Context, items []any) ([]any, error) {
	out := make([]any, len(items))
	for i, item := range items {
		if err := checkEvery(ctx, i, "TransformData map"); err != nil {
			return nil, err
		}
		obj := make(map[string]any, len(m.keys))
		for j, k := range m.keys {
			v, _, _ := datamodel.Lookup(item, m.paths[j].Segments)
			obj[k] = v // a missing field reads as null
		}
		out[i] = obj
	}
	return out, nil
}

// exprCheckItems is how many elements pass between context checks.
const exprCheckItems = 16

func (m *mapTransform) applyExpr(ctx context.Context, items []any, input a2e.Path) ([]any, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	r := m.expr.runner(ctx)
	out := make([]any, len(items))
	for i, item := range items {
		if i%exprCheckItems == 0 {
			if err := ctx.Err(); err != nil {
				return nil, exprFault(err, m.expr, i, input)
			}
		}
		v, err := r.eval(item, i)
		if err != nil {
			return nil, exprFault(err, m.expr, i, input)
		}
		out[i] = v
	}
	return out, nil
}
