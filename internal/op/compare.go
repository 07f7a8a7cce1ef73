package op

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// The comparison semantics shared by FilterData and Conditional (RESOLUTIONS,
// "Operations"):
//
//   - A missing field reads as null. exists is the one operator that tells the two
//     apart: exists is true when the path is present, even when its value is null.
//   - Numbers compare as numbers (1 == 1.0). Strings order lexically (byte order).
//     Ordering operators between any other pair of types are false, never an error;
//     != between different types is true.
//   - == and != on arrays and objects are deep equality.
//   - in: the field value is an element of value (an array), by deep equality.
//   - contains: substring for strings, element (deep equality) for arrays, else false.
//   - startsWith / endsWith: strings only, else false.
//   - empty: missing, null, "", [] or {}.
//   - value may be {"path": "/workflow/..."}: the comparison value is read from the
//     data model at run time (a missing path there is a DataError). An object whose
//     only key is "path" with a string value is always such a reference.

// operator is a compiled comparison operator.
type operator uint8

const (
	opEq operator = iota
	opNe
	opGt
	opLt
	opGe
	opLe
	opIn
	opContains
	opStartsWith
	opEndsWith
	opExists
	opEmpty
)

var operatorByName = map[string]operator{
	a2e.OpEq: opEq, a2e.OpNe: opNe, a2e.OpGt: opGt, a2e.OpLt: opLt, a2e.OpGe: opGe, a2e.OpLe: opLe,
	a2e.OpIn: opIn, a2e.OpContains: opContains, a2e.OpStartsWith: opStartsWith, a2e.OpEndsWith: opEndsWith,
	a2e.OpExists: opExists, a2e.OpEmpty: opEmpty,
}

// Predicate is one compiled condition: a field inside an item (or the item
// itself when the field is empty), an operator and a comparison value.
type Predicate struct {
	field    a2e.Path
	operator string
	op       operator
	literal  any       // the comparison value when it is given literally
	ref      *a2e.Path // the comparison value's data-model path, for {"path": ...}
	// set holds the scalar elements of a literal `in` array so a lookup is O(1).
	// Arrays holding containers fall back to a linear deep-equality scan.
	set map[any]struct{}
}

// compilePredicate validates and compiles one condition. jsonPath names the
// condition in the config (operation.FilterData.conditions[1]); allowed are the
// operators the caller accepts.
func compilePredicate(field, operatorName string, value json.RawMessage, jsonPath string, allowed []string) (*Predicate, error) {
	fp, err := parseItemField(field, jsonPath+".field", true)
	if err != nil {
		return nil, err
	}
	return compileTest(fp, operatorName, value, jsonPath, allowed)
}

// compileTest compiles a condition whose subject path is already parsed.
func compileTest(subject a2e.Path, operatorName string, value json.RawMessage, jsonPath string, allowed []string) (*Predicate, error) {
	if err := oneOf(operatorName, allowed, jsonPath+".operator", "operator"); err != nil {
		return nil, err
	}
	p := &Predicate{field: subject, operator: operatorName, op: operatorByName[operatorName]}
	hasValue := len(value) > 0
	if p.op == opExists || p.op == opEmpty {
		// A value would suggest a meaning we do not have (exists: false); refuse it
		// rather than ignore it.
		if hasValue && string(value) != "null" {
			return nil, invalidConfig(jsonPath+".value", "operator %q takes no value", operatorName).
				WithSuggestions("Remove value; exists and empty test the path alone")
		}
		return p, nil
	}
	if !hasValue {
		return nil, invalidConfig(jsonPath+".value", "operator %q needs a value", operatorName).
			WithSuggestions(`Give a JSON value, or {"path": "/workflow/..."} to compare against the data model`)
	}
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return nil, invalidConfig(jsonPath+".value", "%s.value is not valid JSON", jsonPath).WithCause(err)
	}
	if ref, ok, err := valueRef(v, jsonPath+".value"); err != nil {
		return nil, err
	} else if ok {
		p.ref = &ref
		return p, nil
	}
	p.literal = v
	if p.op == opIn {
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidConfig(jsonPath+".value", "operator \"in\" needs an array value, got %s", datamodel.KindOf(v)).
				WithSuggestions(`Write value as an array, for example ["a", "b"]`)
		}
		p.set = scalarSet(arr)
	}
	return p, nil
}

// valueRef recognises {"path": "/workflow/..."}.
func valueRef(v any, jsonPath string) (a2e.Path, bool, error) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return a2e.Path{}, false, nil
	}
	s, ok := obj["path"].(string)
	if !ok {
		return a2e.Path{}, false, nil
	}
	p, err := parseConfigPath(s, jsonPath+".path")
	if err != nil {
		return a2e.Path{}, false, err
	}
	return p, true, nil
}

// scalarSet indexes an array of scalars for `in`; nil when it holds containers.
func scalarSet(arr []any) map[any]struct{} {
	set := make(map[any]struct{}, len(arr))
	for _, e := range arr {
		switch e.(type) {
		case []any, map[string]any:
			return nil
		}
		set[e] = struct{}{}
	}
	return set
}

// Field is the path the predicate tests, relative to the item.
func (p *Predicate) Field() a2e.Path { return p.field }

// Operator is the operator's name.
func (p *Predicate) Operator() string { return p.operator }

// Ref is the data-model path of the comparison value, when it is {"path": ...}.
func (p *Predicate) Ref() (a2e.Path, bool) {
	if p.ref == nil {
		return a2e.Path{}, false
	}
	return *p.ref, true
}

// Eval tests item. data is read only when the value is a {"path": ...} reference.
func (p *Predicate) Eval(item any, data Data) (bool, error) {
	rhs, err := p.resolve(data)
	if err != nil {
		return false, err
	}
	v, present, _ := datamodel.Lookup(item, p.field.Segments)
	return p.test(v, present, rhs), nil
}

// resolve returns the comparison value, reading a reference from data. Callers
// that test many items resolve once.
func (p *Predicate) resolve(data Data) (any, error) {
	if p.ref == nil {
		return p.literal, nil
	}
	if data == nil {
		return nil, dataError(*p.ref, "path %s cannot be read: no data model", p.ref)
	}
	return data.Get(*p.ref)
}

// test applies the operator to the subject v (present tells missing from null)
// and the resolved comparison value rhs. It never fails and does not allocate.
func (p *Predicate) test(v any, present bool, rhs any) bool {
	switch p.op {
	case opExists:
		return present
	case opEmpty:
		return isEmpty(v)
	case opEq:
		return jsonEqual(v, rhs)
	case opNe:
		return !jsonEqual(v, rhs)
	case opGt:
		c, ok := order(v, rhs)
		return ok && c > 0
	case opLt:
		c, ok := order(v, rhs)
		return ok && c < 0
	case opGe:
		c, ok := order(v, rhs)
		return ok && c >= 0
	case opLe:
		c, ok := order(v, rhs)
		return ok && c <= 0
	case opIn:
		if p.set != nil && p.ref == nil {
			k, ok := setKey(v)
			if !ok {
				return false // a container is never an element of an all-scalar array
			}
			_, hit := p.set[k]
			return hit
		}
		arr, ok := rhs.([]any)
		return ok && containsElem(arr, v)
	case opContains:
		switch s := v.(type) {
		case string:
			sub, ok := rhs.(string)
			return ok && strings.Contains(s, sub)
		case []any:
			return containsElem(s, rhs)
		}
		return false
	case opStartsWith:
		s, ok1 := v.(string)
		pre, ok2 := rhs.(string)
		return ok1 && ok2 && strings.HasPrefix(s, pre)
	case opEndsWith:
		s, ok1 := v.(string)
		suf, ok2 := rhs.(string)
		return ok1 && ok2 && strings.HasSuffix(s, suf)
	}
	return false
}

// setKey normalises a scalar for the `in` set: numbers become float64 so 1 and
// 1.0 meet (Go map keys already treat -0 and 0 as one).
func setKey(v any) (any, bool) {
	switch v.(type) {
	case []any, map[string]any:
		return nil, false
	case float64, string, bool, nil:
		return v, true
	}
	if f, ok := number(v); ok {
		return f, true
	}
	return v, true
}

func containsElem(arr []any, v any) bool {
	for _, e := range arr {
		if jsonEqual(e, v) {
			return true
		}
	}
	return false
}

// isEmpty: missing (nil), null, "", [] or {}.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// number reads a JSON number. The data model holds float64 only; the integer
// cases cover values built in Go (expression results, tests).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// order compares two values that order: numbers with numbers, strings with
// strings. ok is false for any other pair.
func order(a, b any) (int, bool) {
	if sa, ok := a.(string); ok {
		sb, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(sa, sb), true
	}
	fa, ok := number(a)
	if !ok {
		return 0, false
	}
	fb, ok := number(b)
	if !ok {
		return 0, false
	}
	switch {
	case fa < fb:
		return -1, true
	case fa > fb:
		return 1, true
	}
	return 0, true
}

// jsonEqual is deep equality of JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	fa, ok := number(a)
	if !ok {
		return false
	}
	fb, ok := number(b)
	return ok && fa == fb
}

// sortRank orders types for sorting: numbers < strings < booleans < arrays <
// objects; null and missing (rank 5) always sort last, whatever the order.
func sortRank(v any, present bool) int {
	if !present {
		return 5
	}
	switch v.(type) {
	case nil:
		return 5
	case string:
		return 1
	case bool:
		return 2
	case []any:
		return 3
	case map[string]any:
		return 4
	}
	if _, ok := number(v); ok {
		return 0
	}
	return 4
}

// keyText is a group key as text: strings as they are, everything else in its
// JSON form (numbers 1 and 1.0 both "1", null "null").
func keyText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	if f, ok := number(v); ok {
		return formatNumber(f)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// formatNumber writes f the way encoding/json does.
func formatNumber(f float64) string {
	b, err := json.Marshal(f)
	if err != nil { // NaN or Inf cannot come from JSON; say what it is anyway
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b)
}
