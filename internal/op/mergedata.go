package op

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// MergeDataOp merges two or more sources.
var MergeDataOp = Registration{
	Spec: Spec{
		Name:    a2e.OpMergeData,
		Summary: "Merge two or more sources: concat, union, intersect or deepMerge",
		Description: "Reads every path in sources (2 to 64) and writes the merge to outputPath. " +
			"concat joins arrays in order (a source that is not an array counts as one element). " +
			"union is concat without duplicates (deep equality, numbers by value), first occurrence kept. " +
			"intersect keeps the elements of the first source that are present in every other source, " +
			"in the first source's order (its own duplicates stay). " +
			"deepMerge merges objects recursively: later sources win, arrays and other values are replaced; " +
			"every source must be an object.",
		Pure:       true,
		CacheTTL:   time.Minute,
		MetersData: true,
		Example: `{"type":"operationUpdate","operationId":"seed-a","operation":{"LoadData":{"storage":"sessionStorage","key":"example-tags-a","default":["go","rust"],"outputPath":"/workflow/tags-a"}}}
{"type":"operationUpdate","operationId":"seed-b","operation":{"LoadData":{"storage":"sessionStorage","key":"example-tags-b","default":["rust","zig"],"outputPath":"/workflow/tags-b"}}}
{"type":"operationUpdate","operationId":"all-tags","operation":{"MergeData":{"sources":["/workflow/tags-a","/workflow/tags-b"],"strategy":"union","outputPath":"/workflow/tags"}}}
{"type":"beginExecution","executionId":"merge-example","operationOrder":["seed-a","seed-b","all-tags"]}
`,
	},
	New: newMergeData,
}

const maxMergeSources = 64

type mergeData struct {
	sources  []a2e.Path
	strategy string
	output   a2e.Path
}

func newMergeData(raw json.RawMessage, _ *Deps) (Operation, error) {
	var cfg a2e.MergeData
	if err := decodeStrict(raw, &cfg, a2e.OpMergeData); err != nil {
		return nil, err
	}
	const base = "operation.MergeData"
	if err := validateCommon(cfg.Common, base); err != nil {
		return nil, err
	}
	if err := countRange(len(cfg.Sources), 2, maxMergeSources, base+".sources", "sources"); err != nil {
		return nil, err.WithSuggestions("Name at least two data-model paths to merge")
	}
	op := &mergeData{strategy: cfg.Strategy}
	for i, s := range cfg.Sources {
		p, err := parseConfigPath(s, fmt.Sprintf("%s.sources[%d]", base, i))
		if err != nil {
			return nil, err
		}
		op.sources = append(op.sources, p)
	}
	if err := oneOf(cfg.Strategy, a2e.MergeStrategies, base+".strategy", "strategy"); err != nil {
		return nil, err
	}
	var err error
	if op.output, err = parseOutputPath(cfg.OutputPath, base+".outputPath"); err != nil {
		return nil, err
	}
	return op, nil
}

func (m *mergeData) Reads() []a2e.Path        { return slices.Clone(m.sources) }
func (m *mergeData) Writes() (a2e.Path, bool) { return m.output, true }

func (m *mergeData) Run(ctx context.Context, rc *RunContext) (any, error) {
	out, err := m.run(ctx, rc)
	return out, withOp(err, rc.OperationID)
}

// concatSize is the size of the concatenation of vals, known before it is
// made; each value is walked no further than the rest of b.
func concatSize(b *datamodel.Budget, vals []any) int64 {
	n, size := 0, int64(0)
	for _, v := range vals {
		if arr, ok := v.([]any); ok {
			// Its elements go into the new array; its own header does not.
			header := datamodel.ArraySize(cap(arr))
			size += b.SizeOf(v, header) - header
			n += len(arr)
		} else {
			size += b.SizeOf(v, 0)
			n++
		}
	}
	return size + datamodel.ArraySize(n)
}

func (m *mergeData) run(ctx context.Context, rc *RunContext) (any, error) {
	vals := make([]any, len(m.sources))
	for i, p := range m.sources {
		v, err := rc.Data.Get(p)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	if m.strategy == a2e.MergeConcat {
		// The one strategy whose size is known before it allocates: charged
		// first, so a concatenation over the budget is never made.
		if err := rc.Budget.Charge(rc.OperationID, concatSize(rc.Budget, vals)); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, ctxFault(err, "MergeData concat")
		}
		return concatValues(vals), nil
	}
	out, err := m.merge(ctx, vals)
	if err != nil {
		return nil, err
	}
	return out, rc.Budget.ChargeValue(rc.OperationID, out)
}

// merge runs the strategies whose size is known only once they are done.
func (m *mergeData) merge(ctx context.Context, vals []any) (any, error) {
	switch m.strategy {
	case a2e.MergeUnion:
		return unionValues(ctx, vals)
	case a2e.MergeIntersect:
		return intersectValues(ctx, vals)
	}
	for i, v := range vals {
		if _, ok := v.(map[string]any); !ok {
			return nil, dataError(m.sources[i], "%s is %s, deepMerge needs objects", m.sources[i], datamodel.KindOf(v)).
				WithSuggestions("Use concat or union to merge arrays")
		}
	}
	out := vals[0].(map[string]any)
	keys := 0
	for _, v := range vals[1:] {
		var err error
		if out, err = deepMerge(ctx, out, v.(map[string]any), &keys); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// elems is a source as a list: an array's elements, or the value itself.
func elems(v any) []any {
	if arr, ok := v.([]any); ok {
		return arr
	}
	return []any{v}
}

func concatValues(vals []any) []any {
	n := 0
	for _, v := range vals {
		n += len(elems(v))
	}
	out := make([]any, 0, n)
	for _, v := range vals {
		out = append(out, elems(v)...)
	}
	return out
}

func unionValues(ctx context.Context, vals []any) (any, error) {
	seen := newValueSet(maphash.MakeSeed())
	out := []any{}
	i := 0
	for _, v := range vals {
		for _, e := range elems(v) {
			if err := checkEvery(ctx, i, "MergeData union"); err != nil {
				return nil, err
			}
			i++
			if seen.add(e) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func intersectValues(ctx context.Context, vals []any) (any, error) {
	sets := make([]*valueSet, len(vals)-1)
	seed := maphash.MakeSeed() // one seed: an element is hashed once for every set
	i := 0
	for j, v := range vals[1:] {
		set := newValueSet(seed)
		for _, e := range elems(v) {
			if err := checkEvery(ctx, i, "MergeData intersect"); err != nil {
				return nil, err
			}
			i++
			set.add(e)
		}
		sets[j] = set
	}
	out := []any{}
	for _, e := range elems(vals[0]) {
		h := sets[0].hash(e)
		in := true
		for _, set := range sets {
			if !set.hasHashed(h, e) {
				in = false
				break
			}
		}
		if in {
			out = append(out, e)
		}
	}
	return out, nil
}

// valueSet is a set of JSON values under deep equality (numbers by value,
// objects whatever their key order). Values are hashed without allocating and
// compared with jsonEqual on a hash hit, so a collision costs time, never a
// wrong answer; lookups are O(1) expected, union and intersect O(n).
type valueSet struct {
	seed  maphash.Seed
	first map[uint64]any   // the first value seen per hash
	more  map[uint64][]any // further values with the same hash (rare)
}

func newValueSet(seed maphash.Seed) *valueSet {
	return &valueSet{seed: seed, first: map[uint64]any{}}
}

// add inserts v and reports whether it was new.
func (s *valueSet) add(v any) bool {
	h := s.hash(v)
	if s.hasHashed(h, v) {
		return false
	}
	if _, taken := s.first[h]; !taken {
		s.first[h] = v
		return true
	}
	if s.more == nil {
		s.more = map[uint64][]any{}
	}
	s.more[h] = append(s.more[h], v)
	return true
}

// hasHashed reports whether v, whose hash is h, is in s. Sets made with the
// same seed hash alike, so h may come from any of them.
func (s *valueSet) hasHashed(h uint64, v any) bool {
	f, ok := s.first[h]
	if !ok {
		return false
	}
	if jsonEqual(f, v) {
		return true
	}
	for _, m := range s.more[h] {
		if jsonEqual(m, v) {
			return true
		}
	}
	return false
}

func (s *valueSet) hash(v any) uint64 { return hashJSON(s.seed, v) }

// Type tags keep values of different types apart ("1" and 1, [] and {}).
const (
	tagNull uint64 = 0x9e3779b97f4a7c15 + iota
	tagFalse
	tagTrue
	tagNumber
	tagString
	tagArray
	tagObject
	tagOther
)

// hashJSON hashes a JSON value so that deep-equal values hash alike: numbers by
// value (-0 as 0), objects order-independently (a sum over their entries).
func hashJSON(seed maphash.Seed, v any) uint64 {
	switch x := v.(type) {
	case nil:
		return tagNull
	case bool:
		if x {
			return tagTrue
		}
		return tagFalse
	case string:
		return mix64(maphash.String(seed, x) ^ tagString)
	case []any:
		h := tagArray
		for _, e := range x {
			h = mix64(h*31 + hashJSON(seed, e))
		}
		return mix64(h + uint64(len(x)))
	case map[string]any:
		var sum uint64
		for k, e := range x {
			sum += mix64(maphash.String(seed, k)*0x100000001b3 ^ hashJSON(seed, e))
		}
		return mix64(sum ^ tagObject ^ uint64(len(x)))
	}
	if f, ok := number(v); ok {
		if f == 0 {
			f = 0 // -0 and 0 are one value
		}
		return mix64(math.Float64bits(f) ^ tagNumber)
	}
	return tagOther
}

// mix64 is the splitmix64 finaliser: it spreads every input bit over the output.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// deepMerge returns a new object: b's keys win, objects on both sides merge.
// Neither input is modified; values present on one side only are shared.
// keys counts the keys copied so far: the context is checked whenever
// another filterCheckEvery have been.
func deepMerge(ctx context.Context, a, b map[string]any, keys *int) (map[string]any, error) {
	before := *keys
	*keys += len(a) + len(b)
	if *keys/filterCheckEvery != before/filterCheckEvery {
		if err := ctx.Err(); err != nil {
			return nil, ctxFault(err, "MergeData deepMerge")
		}
	}
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, bv := range b {
		if bo, ok := bv.(map[string]any); ok {
			if ao, ok := out[k].(map[string]any); ok {
				merged, err := deepMerge(ctx, ao, bo, keys)
				if err != nil {
					return nil, err
				}
				out[k] = merged
				continue
			}
		}
		out[k] = bv
	}
	return out, nil
}
