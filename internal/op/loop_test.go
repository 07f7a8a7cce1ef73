package op_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

func TestLoop(t *testing.T) {
	m := dtModel(t, "", map[string]string{"users": `[{"n": 1}, {"n": 2}, {"n": 3}]`})
	tests := []struct {
		name, extra string
		concurrency int
	}{
		{"default concurrency", ``, 1},
		{"concurrency", `,"concurrency":8`, 8},
		{"maximum concurrency", `,"concurrency":64`, 64},
		{"maxIterations at the count", `,"maxIterations":3`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := dtBuild(t, op.LoopOp, `{"inputPath":"/workflow/users","operations":["a","b"],"outputPath":"/workflow/out"`+tt.extra+`}`)
			out, err := dtRun(t, o, m)
			if err != nil {
				t.Fatal(err)
			}
			it, ok := out.(op.Iteration)
			if !ok {
				t.Fatalf("want op.Iteration, got %T", out)
			}
			users, _ := m.GetString("/workflow/users")
			want := op.Iteration{Items: users.([]any), Body: []string{"a", "b"}, Concurrency: tt.concurrency}
			if !reflect.DeepEqual(it, want) {
				t.Errorf("got %+v, want %+v", it, want)
			}
		})
	}
}

func TestLoopLimits(t *testing.T) {
	items := "[" + strings.TrimSuffix(strings.Repeat("1,", 11), ",") + "]"
	m := dtModel(t, "", map[string]string{"items": items, "obj": `{"a": 1}`})
	tests := []struct {
		name, extra string
		limit       int // account limit; 0 = default
		wantLimit   int // 0 = no error expected
	}{
		{"under the account limit", ``, 20, 0},
		{"over the account limit", ``, 10, 10},
		{"over maxIterations", `,"maxIterations":5`, 0, 5},
		{"maxIterations within the account limit", `,"maxIterations":11`, 11, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dtDeps()
			if tt.limit > 0 {
				d.Limits.MaxLoopIterations = tt.limit
			}
			o, err := op.LoopOp.New([]byte(`{"inputPath":"/workflow/items","operations":["a"]`+tt.extra+`}`), d)
			if err != nil {
				t.Fatal(err)
			}
			out, err := dtRun(t, o, m)
			if tt.wantLimit == 0 {
				if err != nil || len(out.(op.Iteration).Items) != 11 {
					t.Fatalf("got %v, %v", out, err)
				}
				return
			}
			dtDataError(t, err, "11 items", "at most")
			fe, _ := fault.As(err)
			if fe.Details["count"] != 11 || fe.Details["limit"] != tt.wantLimit {
				t.Errorf("details %v, want count 11 limit %d", fe.Details, tt.wantLimit)
			}
		})
	}
	t.Run("maxIterations above the account limit is refused", func(t *testing.T) {
		d := dtDeps()
		d.Limits.MaxLoopIterations = 10
		_, err := op.LoopOp.New([]byte(`{"inputPath":"/workflow/items","operations":["a"],"maxIterations":5000}`), d)
		fe, ok := fault.As(err)
		if !ok || fe.SpecType() != fault.ValidationError || fe.Path != "operation.Loop.maxIterations" ||
			!strings.Contains(fe.Message, "above this account's loop limit of 10") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("not an array", func(t *testing.T) {
		o := dtBuild(t, op.LoopOp, `{"inputPath":"/workflow/obj","operations":["a"]}`)
		_, err := dtRun(t, o, m)
		dtDataError(t, err, "/workflow/obj is an object, Loop needs an array")
	})
	t.Run("missing input", func(t *testing.T) {
		o := dtBuild(t, op.LoopOp, `{"inputPath":"/workflow/gone","operations":["a"]}`)
		_, err := dtRun(t, o, m)
		dtDataError(t, err, "/workflow/gone")
	})
}

func TestLoopConfigErrors(t *testing.T) {
	const base = "operation.Loop"
	tests := []struct {
		name, cfg, path string
	}{
		{"no operations", `{"inputPath":"/workflow/a"}`, base + ".operations"},
		{"empty operations", `{"inputPath":"/workflow/a","operations":[]}`, base + ".operations"},
		{"bad id", `{"inputPath":"/workflow/a","operations":["a/b"]}`, base + ".operations[0]"},
		{"repeated id", `{"inputPath":"/workflow/a","operations":["a","a"]}`, base + ".operations[1]"},
		{"missing inputPath", `{"operations":["a"]}`, base + ".inputPath"},
		{"negative concurrency", `{"inputPath":"/workflow/a","operations":["a"],"concurrency":-1}`, base + ".concurrency"},
		{"concurrency over 64", `{"inputPath":"/workflow/a","operations":["a"],"concurrency":65}`, base + ".concurrency"},
		{"negative maxIterations", `{"inputPath":"/workflow/a","operations":["a"],"maxIterations":-5}`, base + ".maxIterations"},
		{"bad outputPath", `{"inputPath":"/workflow/a","operations":["a"],"outputPath":"out"}`, base + ".outputPath"},
		{"fractional concurrency", `{"inputPath":"/workflow/a","operations":["a"],"concurrency":1.5}`, base + ".concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { dtConfigError(t, op.LoopOp, nil, tt.cfg, tt.path) })
	}
}

func TestLoopReadsWrites(t *testing.T) {
	o := dtBuild(t, op.LoopOp, `{"inputPath":"/input/items","operations":["a"],"outputPath":"/workflow/r"}`)
	if r := o.(op.Reader).Reads(); len(r) != 1 || r[0].String() != "/input/items" {
		t.Errorf("Reads() = %v", r)
	}
	if w, ok := o.(op.Writer).Writes(); !ok || w.String() != "/workflow/r" {
		t.Errorf("Writes() = %v %v", w, ok)
	}
}
