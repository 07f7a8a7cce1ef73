package op_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// TestCPUBoundDataOpsStopAtDeadline: transforms and merges that work through
// large data check their context as they go, so the execution's deadline
// stops them instead of letting them run on past it. The context is already
// past its deadline: the assertion is on the error kind, never on a duration.
func TestCPUBoundDataOpsStopAtDeadline(t *testing.T) {
	items := make([]string, 20000)
	objects := make([]string, 20000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"n":%d,"s":"v%d","g":"g%d"}`, 20000-i, i, i%7)
		objects[i] = fmt.Sprintf(`"k%d":{"x":%d}`, i, i)
	}
	m := dtModel(t, "", map[string]string{
		"in":    "[" + strings.Join(items, ",") + "]",
		"a":     "{" + strings.Join(objects, ",") + "}",
		"b":     "{" + strings.Join(objects, ",") + "}",
		"mixed": `[{"n":"x"},` + strings.Join(items, ",") + "]",
	})
	cases := []struct {
		name string
		reg  op.Registration
		cfg  string
	}{
		{"sort numbers", op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"sort","config":{"field":"n"},"outputPath":"/workflow/o"}`},
		{"sort mixed", op.TransformDataOp, `{"inputPath":"/workflow/mixed","transform":"sort","config":{"field":"n"},"outputPath":"/workflow/o"}`},
		{"group", op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"group","config":{"field":"g"},"outputPath":"/workflow/o"}`},
		{"map fields", op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"map","config":{"fields":{"v":"s"}},"outputPath":"/workflow/o"}`},
		{"deepMerge", op.MergeDataOp, `{"sources":["/workflow/a","/workflow/b"],"strategy":"deepMerge","outputPath":"/workflow/o"}`},
		{"concat", op.MergeDataOp, `{"sources":["/workflow/in","/workflow/in"],"strategy":"concat","outputPath":"/workflow/o"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := dtBuild(t, c.reg, c.cfg)
			if _, err := o.Run(context.Background(), dtRC(m)); err != nil {
				t.Fatalf("without a deadline: %v", err)
			}
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
			defer cancel()
			out, err := o.Run(ctx, dtRC(m))
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.Timeout || fe.SpecType() != fault.TimeoutError {
				t.Fatalf("past the deadline: got %T %v (output %T), want a TimeoutError", err, err, out)
			}
		})
	}
}

// TestMergeConcatChargedBeforeAllocating: a concatenation is charged its full
// size (shared elements counted once per copy, as they are once encoded)
// before it is made, and one over the budget is not made.
func TestMergeConcatChargedBeforeAllocating(t *testing.T) {
	m := dtModel(t, "", map[string]string{"a": `[{"x":"aaaa"},{"x":"bbbb"}]`, "b": `"one"`})
	o := dtBuild(t, op.MergeDataOp, `{"sources":["/workflow/a","/workflow/b","/workflow/a"],"strategy":"concat","outputPath":"/workflow/o"}`)
	rc := dtRC(m)
	rc.Budget = datamodel.NewBudget(0)
	out, err := o.Run(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	if want := datamodel.Size(out); rc.Budget.Used() != want {
		t.Errorf("charged %d, want the output's size %d", rc.Budget.Used(), want)
	}

	rc = dtRC(m)
	rc.Budget = datamodel.NewBudget(100)
	out, err = o.Run(context.Background(), rc)
	fe, ok := fault.As(err)
	if !ok || fe.SpecType() != fault.DataError || out != nil || fe.Details["dataBudgetBytes"] != int64(100) {
		t.Fatalf("over the budget: got %v %v, want the budget's DataError and no output", out, err)
	}
}
