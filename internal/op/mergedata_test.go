package op_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/op"
)

func mdRun(t *testing.T, strategy string, sources ...string) (any, error) {
	t.Helper()
	kv := map[string]string{}
	paths := ""
	for i, s := range sources {
		k := string(rune('a' + i))
		kv[k] = s
		if i > 0 {
			paths += ","
		}
		paths += `"/workflow/` + k + `"`
	}
	m := dtModel(t, "", kv)
	o := dtBuild(t, op.MergeDataOp, `{"sources":[`+paths+`],"strategy":"`+strategy+`","outputPath":"/workflow/out"}`)
	return dtRun(t, o, m)
}

func TestMergeData(t *testing.T) {
	tests := []struct {
		name, strategy string
		sources        []string
		want           string
	}{
		{"concat arrays", "concat", []string{`[1, 2]`, `[2, 3]`}, `[1, 2, 2, 3]`},
		{"concat non-arrays are one element", "concat", []string{`[1]`, `{"a": 1}`, `"x"`, `[[2]]`}, `[1, {"a": 1}, "x", [2]]`},
		{"union drops deep duplicates", "union", []string{`[1, {"a": [1, {"b": 2}]}, "1", null]`, `[1.0, {"a": [1, {"b": 2.0}]}, 2, null, "1"]`}, `[1, {"a": [1, {"b": 2}]}, "1", null, 2]`},
		{"union ignores key order", "union", []string{`[{"a": 1, "b": 2}]`, `[{"b": 2, "a": 1}, {"a": 1}]`}, `[{"a": 1, "b": 2}, {"a": 1}]`},
		{"union within one source", "union", []string{`[3, 3, 1, 3]`, `[]`}, `[3, 1]`},
		{"union keeps types apart", "union", []string{`[1, "1", true, "true", [1], "s1:1"]`, `[]`}, `[1, "1", true, "true", [1], "s1:1"]`},
		{"intersect", "intersect", []string{`[1, 2, {"x": 1}, 3, 2]`, `[2, {"x": 1.0}, 5]`, `[{"x": 1}, 2, 9]`}, `[2, {"x": 1}, 2]`},
		{"intersect empty", "intersect", []string{`[1, 2]`, `[3]`}, `[]`},
		{"intersect scalar sources", "intersect", []string{`"a"`, `["a", "b"]`}, `["a"]`},
		{"deepMerge", "deepMerge", []string{
			`{"a": 1, "n": {"x": 1, "y": {"p": 1}}, "arr": [1, 2], "keep": true}`,
			`{"a": 2, "n": {"y": {"q": 2}, "z": 3}, "arr": [3]}`,
			`{"n": {"x": "last"}}`},
			`{"a": 2, "n": {"x": "last", "y": {"p": 1, "q": 2}, "z": 3}, "arr": [3], "keep": true}`},
		{"deepMerge object replaces scalar", "deepMerge", []string{`{"a": 1}`, `{"a": {"b": 1}}`}, `{"a": {"b": 1}}`},
		{"deepMerge scalar replaces object", "deepMerge", []string{`{"a": {"b": 1}}`, `{"a": null}`}, `{"a": null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := mdRun(t, tt.strategy, tt.sources...)
			if err != nil {
				t.Fatal(err)
			}
			dtWantJSON(t, out, tt.want)
		})
	}
}

func TestMergeDataRunErrors(t *testing.T) {
	_, err := mdRun(t, "deepMerge", `{"a": 1}`, `[1]`)
	dtDataError(t, err, "/workflow/b is an array, deepMerge needs objects")
	_, err = mdRun(t, "deepMerge", `"s"`, `{}`)
	dtDataError(t, err, "/workflow/a is a string")

	m := dtModel(t, "", map[string]string{"a": `[1]`})
	o := dtBuild(t, op.MergeDataOp, `{"sources":["/workflow/a","/workflow/gone"],"strategy":"concat","outputPath":"/workflow/out"}`)
	_, err = dtRun(t, o, m)
	dtDataError(t, err, "/workflow/gone")
}

func TestMergeDataConfigErrors(t *testing.T) {
	const base = "operation.MergeData"
	many := `"/workflow/a"`
	for i := 0; i < 64; i++ {
		many += `,"/workflow/a"`
	}
	tests := []struct{ name, cfg, path string }{
		{"one source", `{"sources":["/workflow/a"],"strategy":"concat","outputPath":"/workflow/o"}`, base + ".sources"},
		{"no sources", `{"strategy":"concat","outputPath":"/workflow/o"}`, base + ".sources"},
		{"too many sources", `{"sources":[` + many + `],"strategy":"concat","outputPath":"/workflow/o"}`, base + ".sources"},
		{"bad source", `{"sources":["/workflow/a","/workflow/"],"strategy":"concat","outputPath":"/workflow/o"}`, base + ".sources[1]"},
		{"unknown strategy", `{"sources":["/workflow/a","/workflow/b"],"strategy":"zip","outputPath":"/workflow/o"}`, base + ".strategy"},
		{"missing strategy", `{"sources":["/workflow/a","/workflow/b"],"outputPath":"/workflow/o"}`, base + ".strategy"},
		{"missing outputPath", `{"sources":["/workflow/a","/workflow/b"],"strategy":"union"}`, base + ".outputPath"},
		{"sources not an array", `{"sources":"/workflow/a","strategy":"union","outputPath":"/workflow/o"}`, base + ".sources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { dtConfigError(t, op.MergeDataOp, nil, tt.cfg, tt.path) })
	}
}

func TestMergeDataReads(t *testing.T) {
	o := dtBuild(t, op.MergeDataOp, `{"sources":["/workflow/a","/input/b"],"strategy":"union","outputPath":"/workflow/o"}`)
	r := o.(op.Reader).Reads()
	if len(r) != 2 || r[0].String() != "/workflow/a" || r[1].String() != "/input/b" {
		t.Errorf("Reads() = %v", r)
	}
	if w, ok := o.(op.Writer).Writes(); !ok || w.String() != "/workflow/o" {
		t.Errorf("Writes() = %v %v", w, ok)
	}
}
