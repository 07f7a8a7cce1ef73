package op_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/op"
)

func TestCompileWithVars(t *testing.T) {
	vars := []string{"temperature", "threshold", "tags"}
	cases := []struct {
		src  string
		in   map[string]any
		want any
	}{
		{"temperature >= threshold", map[string]any{"temperature": 28.0, "threshold": 25.0}, true},
		{"temperature >= threshold", map[string]any{"temperature": 18.0, "threshold": 25.0}, false},
		{`len(tags) > 1 && "sun" in tags`, map[string]any{"tags": []any{"sun", "wind"}}, true},
		{"upper(string(threshold)) + '!'", map[string]any{"threshold": 3.0}, "3!"},
	}
	for _, c := range cases {
		e, err := op.CompileWithVars(c.src, "logic", vars, op.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, err := e.Eval(context.Background(), c.in)
		if err != nil || got != c.want {
			t.Fatalf("%s: %v %v, want %v", c.src, got, err, c.want)
		}
	}
	// Unknown names and the outside world stay out.
	for _, src := range []string{"secret > 1", "now()", "env('HOME')", "repeat('x', 1000000000)"} {
		if _, err := op.CompileWithVars(src, "logic", vars, op.Limits{}); err == nil {
			t.Errorf("%s compiled", src)
		}
	}
	// The budgets hold.
	e, err := op.CompileWithVars("map(1..100000000, #)", "logic", vars, op.Limits{})
	if err == nil {
		_, err = e.Eval(context.Background(), map[string]any{})
	}
	if err == nil {
		t.Fatal("a huge range ran")
	}
}
