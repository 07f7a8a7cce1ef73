package op

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func mustCompile(t *testing.T, src string) *Expression {
	t.Helper()
	e, err := compileExpression(src, "x.expression", DefaultLimits())
	if err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	return e
}

func TestExpressionResults(t *testing.T) {
	item := jsonValue(t, `{"name": "ann", "points": 7, "tags": ["a", "b"], "s": "x,y", "n": null}`)
	tests := []struct {
		src  string
		want string // JSON
	}{
		{"item.points * 2", `14`},
		{"item.points + index", `10`},
		{"item.name + '!'", `"ann!"`},
		{"{name: upper(item.name), i: index}", `{"name": "ANN", "i": 3}`},
		{"[1, 2, index]", `[1, 2, 3]`},
		{"len(item.tags)", `2`},
		{"split(item.s, ',')", `["x", "y"]`},
		{"map(item.tags, # + '-')", `["a-", "b-"]`},
		{"filter(item.tags, # != 'a')", `["b"]`},
		{"item.n ?? 'none'", `"none"`},
		{"item.points > 5 ? 'big' : 'small'", `"big"`},
		{"item.tags", `["a", "b"]`},
		{"join(item.tags, '+')", `"a+b"`},
		{"let x = item.points; x * x", `49`},
		{"1..3", `[1, 2, 3]`},
		{"toJSON(item.tags)", "\"[\\n  \\\"a\\\",\\n  \\\"b\\\"\\n]\""},
		{"item.missing", `null`},
		{"reduce(item.tags, #acc + #, '')", `"ab"`},
		{"item.name | upper()", `"ANN"`},
		{"replace(item.name, 'n', 'N')", `"aNN"`},
		{"lower('AB') + trim(' x ')", `"abx"`},
		{"concat(item.tags, ['c'])", `["a", "b", "c"]`},
		{"keys({k: 1})", `["k"]`},
		{"values({k: 1})", `[1]`},
		{"sort([3, 1, 2])", `[1, 2, 3]`},
		{"reverse(item.tags)", `["b", "a"]`},
		{"uniq([1, 1, 2])", `[1, 2]`},
		{"flatten([[1], [2, [3]]])", `[1, 2, 3]`},
		{"take(item.tags, 1)", `["a"]`},
		{"median([1, 2, 9])", `2`},
		{"toPairs({k: 1})", `[["k", 1]]`},
		{"fromPairs([['k', 2]])", `{"k": 2}`},
		{"fromBase64(toBase64('hi'))", `"hi"`},
		{"fromJSON('{\"a\": [1]}')", `{"a": [1]}`},
		{"string(item.points)", `"7"`},
		{"splitAfter('a,b', ',')", `["a,", "b"]`},
		{"groupBy([1, 2, 3], # % 2)", `{"1": [1, 3], "0": [2]}`},
		{"groupBy(item.tags, #)", `{"a": ["a"], "b": ["b"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			r := mustCompile(t, tt.src).runner(context.Background())
			got, err := r.eval(item, 3)
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if want := jsonValue(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, want %#v", got, want)
			}
		})
	}
}

func TestExpressionCompileErrors(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"empty", "  ", "empty"},
		{"syntax", "item.(", "does not compile"},
		{"too long", strings.Repeat("1+", 3000) + "1", "characters long"},
		{"too many nodes", strings.Repeat("1+", 1500) + "1", "does not compile"},
		{"clock is off", "now()", "does not compile"},
		{"date is off", "date('2024-01-01')", "does not compile"},
		{"repeat is off", "repeat('x', 10)", "does not compile"},
		{"unknown variable", "foo + 1", "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := DefaultLimits()
			if tt.name == "too many nodes" {
				lim.MaxExprLength = 100000
			}
			_, err := compileExpression(tt.src, "operation.TransformData.config.expression", lim)
			fe, ok := fault.As(err)
			if !ok {
				t.Fatalf("want a fault, got %v", err)
			}
			if fe.SpecType() != fault.ValidationError || fe.Path != "operation.TransformData.config.expression" || !strings.Contains(fe.Message, tt.msg) {
				t.Errorf("got %s at %q: %s", fe.SpecType(), fe.Path, fe.Message)
			}
		})
	}
}

func TestExpressionRuntimeErrors(t *testing.T) {
	big := strings.Repeat("x", 1<<16)
	arr := make([]any, 1000)
	for i := range arr {
		arr[i] = float64(i)
	}
	item := map[string]any{"s": big, "n": 5.0, "arr": arr, "zero": 0.0}
	tests := []struct{ name, src, msg string }{
		{"bad argument", "upper(item.n)", "upper"},
		{"type error", "item.s * 2", ""},
		{"not JSON", "$env", "not a JSON value"},
		{"infinity", "item.n / item.zero", "JSON cannot hold"},
		{"doubling strings", "let a = item.s + item.s; let b = a + a; let c = b + b; let d = c + c; let e = d + d; let f = e + e; f + f", "memory budget"},
		{"join over a range", "join(map(1..100000, item.s))", "memory budget"},
		{"huge range", "len(1..100000000)", "memory budget"},
		{"quadratic closures", "count(item.arr, all(item.arr, # >= 0))", "iterations"},
		{"upper in a loop", "map(1..1000, upper(item.s))", "memory budget"},
		{"replace that inserts everywhere", "replace(item.s, '', item.s)", "memory budget"},
		{"toJSON of a big structure", "toJSON(map(1..1000, item.s))", "memory budget"},
		{"concat in a loop", "map(1..1000, concat(item.arr, item.arr))", "memory budget"},
		{"bad builtin arity", "upper()", "upper"},
		{"piped upper in a loop", "map(1..1000, item.s | upper())", "memory budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCompile(t, tt.src).runner(context.Background())
			_, err := r.eval(item, 0)
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
}

func TestExpressionDeadlineStopsOneEvaluation(t *testing.T) {
	arr := make([]any, 300)
	for i := range arr {
		arr[i] = float64(i)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	r := mustCompile(t, "count(item, all(item, true))").runner(ctx)
	_, err := r.eval(arr, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline inside the evaluation, got %v", err)
	}
	ferr := exprFault(err, r.expr, 0, a2e.Path{Root: a2e.RootWorkflow, Segments: []a2e.Segment{{Key: "x"}}})
	if fe, ok := fault.As(ferr); !ok || fe.SpecType() != fault.TimeoutError || fe.Kind != fault.Timeout {
		t.Errorf("want TimeoutError, got %v", ferr)
	}
}

func TestToJSONValueConverts(t *testing.T) {
	size := 0
	in := map[string]any{"i": 3, "u": uint8(2), "l": []int{1, 2}, "m": map[string]int{"a": 1}, "s": []string{"x"}, "f": float32(1.5)}
	got, changed, err := toJSONValue(in, &size)
	if err != nil || !changed {
		t.Fatalf("got %v, changed %v", err, changed)
	}
	want := map[string]any{"i": 3.0, "u": 2.0, "l": []any{1.0, 2.0}, "m": map[string]any{"a": 1.0}, "s": []any{"x"}, "f": 1.5}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
	plain := map[string]any{"a": []any{1.0, "x", nil, true}}
	out, changed, err := toJSONValue(plain, &size)
	if err != nil || changed || reflect.ValueOf(out).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Errorf("plain JSON should pass through unchanged: %v %v", changed, err)
	}
	if _, _, err := toJSONValue(struct{}{}, &size); err == nil {
		t.Error("a struct is not JSON")
	}
	if got, _, err := toJSONValue(map[any]any{1: "x", "k": nil}, &size); err != nil || !reflect.DeepEqual(got, map[string]any{"1": "x", "k": nil}) {
		t.Errorf("map keys become text: got %v, %v", got, err)
	}
	if _, _, err := toJSONValue(make(chan int), &size); err == nil {
		t.Error("a channel is not JSON")
	}
}
