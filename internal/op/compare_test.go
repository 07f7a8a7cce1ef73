package op

import (
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// mapData is a tiny Data: absolute path text -> value.
type mapData map[string]any

func (m mapData) Get(p a2e.Path) (any, error) {
	v, ok := m[p.String()]
	if !ok {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "path %s does not exist", p)
	}
	return v, nil
}

func jsonValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestPredicateOperators(t *testing.T) {
	data := mapData{
		"/workflow/min":   float64(10),
		"/workflow/names": []any{"ann", "bob"},
		"/workflow/obj":   map[string]any{"a": 1.0},
	}
	item := `{"n": 5, "f": 1.0, "s": "hello", "e": "", "z": null, "b": true,
		"arr": [1, "x", {"k": 1}], "obj": {"a": 1}, "empty": [], "eobj": {},
		"profile": {"age": 42, "tags": ["go", "rust"]}}`
	tests := []struct {
		field, op, value string
		want             bool
	}{
		// equality: numbers by value, deep for containers, types must match
		{"n", "==", `5`, true},
		{"n", "==", `5.0`, true},
		{"f", "==", `1`, true},
		{"n", "==", `"5"`, false},
		{"n", "!=", `"5"`, true},
		{"s", "==", `"hello"`, true},
		{"s", "!=", `"hello"`, false},
		{"b", "==", `true`, true},
		{"z", "==", `null`, true},
		{"missing", "==", `null`, true},
		{"missing", "!=", `null`, false},
		{"obj", "==", `{"a": 1.0}`, true},
		{"obj", "==", `{"a": 2}`, false},
		{"arr", "==", `[1, "x", {"k": 1}]`, true},
		{"arr", "==", `[1, "x"]`, false},
		{"empty", "==", `[]`, true},
		// ordering: numbers with numbers, strings with strings, else false
		{"n", ">", `4`, true},
		{"n", ">", `5`, false},
		{"n", ">=", `5`, true},
		{"n", "<", `5.5`, true},
		{"n", "<=", `4.9`, false},
		{"s", ">", `"apple"`, true},
		{"s", "<", `"help"`, true},
		{"s", "<", `"hell"`, false},
		{"s", ">", `1`, false},
		{"s", "<", `1`, false},
		{"n", ">", `"1"`, false},
		{"missing", ">", `0`, false},
		{"missing", "<", `0`, false},
		{"z", "<=", `0`, false},
		{"b", ">", `false`, false},
		{"obj", ">", `{}`, false},
		// in
		{"s", "in", `["a", "hello"]`, true},
		{"s", "in", `["a", "b"]`, false},
		{"n", "in", `[1, 5.0]`, true},
		{"n", "in", `["5"]`, false},
		{"obj", "in", `[{"a": 1}]`, true},
		{"obj", "in", `[1, 2]`, false},
		{"missing", "in", `[null]`, true},
		{"z", "in", `[]`, false},
		// contains
		{"s", "contains", `"ell"`, true},
		{"s", "contains", `"xyz"`, false},
		{"arr", "contains", `"x"`, true},
		{"arr", "contains", `1.0`, true},
		{"arr", "contains", `{"k": 1}`, true},
		{"arr", "contains", `"y"`, false},
		{"n", "contains", `5`, false},
		{"s", "contains", `5`, false},
		{"missing", "contains", `"a"`, false},
		// startsWith / endsWith
		{"s", "startsWith", `"he"`, true},
		{"s", "startsWith", `"lo"`, false},
		{"s", "endsWith", `"lo"`, true},
		{"n", "startsWith", `"5"`, false},
		{"arr", "endsWith", `"x"`, false},
		// nested fields
		{"profile.age", ">=", `18`, true},
		{"profile.tags[1]", "==", `"rust"`, true},
		{"profile.tags", "contains", `"go"`, true},
		{"profile.tags[5]", "==", `null`, true},
		{"s.deeper", "==", `null`, true},
		// {"path": ...} values read the data model
		{"n", "<", `{"path": "/workflow/min"}`, true},
		{"s", "in", `{"path": "/workflow/names"}`, false},
		{"obj", "==", `{"path": "/workflow/obj"}`, true},
		{"n", "in", `{"path": "/workflow/min"}`, false}, // not an array: false, not an error
	}
	for _, tt := range tests {
		name := tt.field + " " + tt.op + " " + tt.value
		t.Run(name, func(t *testing.T) {
			p, err := compilePredicate(tt.field, tt.op, json.RawMessage(tt.value), "cond", a2e.FilterOperators)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := p.Eval(jsonValue(t, item), data)
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPredicateExistsEmpty(t *testing.T) {
	item := jsonValue(t, `{"z": null, "e": "", "a": [], "o": {}, "s": "x", "n": 0, "f": false, "arr": [0]}`)
	tests := []struct {
		field       string
		exists, emp bool
	}{
		{"z", true, true}, // exists means present, even when null
		{"missing", false, true},
		{"e", true, true},
		{"a", true, true},
		{"o", true, true},
		{"s", true, false},
		{"n", true, false},
		{"f", true, false},
		{"arr", true, false},
		{"arr[0]", true, false},
		{"arr[1]", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			for op, want := range map[string]bool{"exists": tt.exists, "empty": tt.emp} {
				p, err := compilePredicate(tt.field, op, nil, "cond", a2e.ConditionOperators)
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.Eval(item, nil)
				if err != nil || got != want {
					t.Errorf("%s: got %v, %v; want %v", op, got, err, want)
				}
			}
		})
	}
}

func TestPredicateCompileErrors(t *testing.T) {
	tests := []struct {
		name, field, op, value string
		allowed                []string
		path                   string
	}{
		{"unknown operator", "a", "~=", `1`, a2e.FilterOperators, "c.operator"},
		{"missing operator", "a", "", `1`, a2e.FilterOperators, "c.operator"},
		{"exists not allowed in FilterData", "a", "exists", ``, a2e.FilterOperators, "c.operator"},
		{"missing value", "a", "==", ``, a2e.FilterOperators, "c.value"},
		{"exists with value", "a", "exists", `false`, a2e.ConditionOperators, "c.value"},
		{"in needs array", "a", "in", `"abc"`, a2e.FilterOperators, "c.value"},
		{"bad field", "a..b", "==", `1`, a2e.FilterOperators, "c.field"},
		{"bad ref path", "a", "==", `{"path": "workflow/x"}`, a2e.FilterOperators, "c.value.path"},
		{"bad JSON value", "a", "==", `{`, a2e.FilterOperators, "c.value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compilePredicate(tt.field, tt.op, json.RawMessage(tt.value), "c", tt.allowed)
			fe, ok := fault.As(err)
			if !ok {
				t.Fatalf("want *fault.Error, got %v", err)
			}
			if fe.SpecType() != fault.ValidationError || fe.Kind != fault.Invalid || fe.Path != tt.path {
				t.Errorf("got %s %v at %q (%s); want ValidationError at %q", fe.SpecType(), fe.Kind, fe.Path, fe.Message, tt.path)
			}
		})
	}
}

func TestPredicateMissingRefIsDataError(t *testing.T) {
	p, err := compilePredicate("a", "==", json.RawMessage(`{"path": "/workflow/nope"}`), "c", a2e.FilterOperators)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Eval(map[string]any{"a": 1.0}, mapData{})
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError {
		t.Fatalf("want DataError, got %v", err)
	}
	if r, ok := p.Ref(); !ok || r.String() != "/workflow/nope" {
		t.Errorf("Ref() = %v, %v", r, ok)
	}
	if p.Field().String() != "a" || p.Operator() != "==" {
		t.Errorf("Field() = %v, Operator() = %q", p.Field(), p.Operator())
	}
	lit, _ := compilePredicate("a", "==", json.RawMessage(`1`), "c", a2e.FilterOperators)
	if _, ok := lit.Ref(); ok {
		t.Error("a literal value is no reference")
	}
}

func TestSortRankAndKeyText(t *testing.T) {
	order := []any{1.0, "a", false, []any{}, map[string]any{}, nil}
	for i := 1; i < len(order); i++ {
		if sortRank(order[i-1], true) >= sortRank(order[i], true) {
			t.Errorf("rank(%v) should be below rank(%v)", order[i-1], order[i])
		}
	}
	if sortRank(1.0, false) != sortRank(nil, true) {
		t.Error("missing and null must rank alike")
	}
	texts := map[string]any{"abc": "abc", "1": 1.0, "1.5": 1.5, "null": nil, "true": true, `[1,"a"]`: []any{1.0, "a"}, "100000000000000000000": 1e20}
	for want, v := range texts {
		if got := keyText(v); got != want {
			t.Errorf("keyText(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestJSONEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{1.0, 1, true},
		{int64(2), 2.0, true},
		{"1", 1.0, false},
		{nil, false, false},
		{map[string]any{"a": []any{1.0}}, map[string]any{"a": []any{1}}, true},
		{map[string]any{"a": 1.0}, map[string]any{"b": 1.0}, false},
		{[]any{1.0, 2.0}, []any{2.0, 1.0}, false},
	}
	for _, tt := range tests {
		if got := jsonEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("jsonEqual(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}
