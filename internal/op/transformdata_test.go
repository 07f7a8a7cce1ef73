package op_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

const tdUsers = `[
	{"name": "ann", "team": "red", "points": 150, "age": 31, "profile": {"city": "Oslo", "id": 1}, "id": 10},
	{"name": "bob", "team": "blue", "points": 200, "age": "old", "profile": {"city": "Rome", "id": 2}, "id": 20},
	{"name": "cy", "team": "red", "points": 90, "profile": {"city": "Oslo"}, "id": 30},
	{"name": "di", "team": 7, "points": null, "age": 45, "id": 40},
	{"name": "ed", "points": 120, "age": 31, "id": 50}
]`

// tdRun runs a TransformData over /workflow/users (or the given data).
func tdRun(t *testing.T, input, transform, config string) (any, error) {
	t.Helper()
	m := dtModel(t, "", map[string]string{"users": tdUsers, "in": input})
	o := dtBuild(t, op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"`+transform+`","config":`+config+`,"outputPath":"/workflow/out"}`)
	return dtRun(t, o, m)
}

func names(t *testing.T, v any) string {
	t.Helper()
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(map[string]any)["name"].(string))
	}
	return strings.Join(out, ",")
}

func TestTransformSort(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"asc numbers, null and missing last", `{"field":"points"}`, "cy,ed,ann,bob,di"},
		{"desc numbers, null still last", `{"field":"points","order":"desc"}`, "bob,ann,ed,cy,di"},
		{"stable on ties", `{"field":"team"}`, "di,bob,ann,cy,ed"},
		{"mixed types: numbers before strings", `{"field":"age"}`, "ann,ed,di,bob,cy"},
		{"mixed types reversed, missing last", `{"field":"age","order":"desc"}`, "bob,di,ann,ed,cy"},
		{"nested field", `{"field":"profile.city","order":"desc"}`, "bob,ann,cy,di,ed"},
		{"missing everywhere keeps order", `{"field":"nope"}`, "ann,bob,cy,di,ed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tdRun(t, tdUsers, "sort", tt.config)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(t, out); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("scalars by the item itself", func(t *testing.T) {
		out, err := tdRun(t, `[3, "b", true, null, 1, "a", false, [1], {"x": 1}, 2.5]`, "sort", `{"field":""}`)
		if err != nil {
			t.Fatal(err)
		}
		dtWantJSON(t, out, `[1, 2.5, 3, "a", "b", false, true, [1], {"x": 1}, null]`)
	})
}

func TestTransformSelect(t *testing.T) {
	tests := []struct{ name, input, config, want string }{
		{"fields by last key, missing left out", `[{"name": "ann", "profile": {"city": "Oslo"}, "x": 1}]`,
			`{"fields":["name","profile.city","nope"]}`, `[{"name":"ann","city":"Oslo"}]`},
		{"shared last key keeps the path text", `[{"id": 1, "profile": {"id": 2}}]`,
			`{"fields":["id","profile.id"]}`, `[{"id":1,"profile.id":2}]`},
		{"index keeps the path text", `[{"tags": ["a", "b"]}]`, `{"fields":["tags[1]"]}`, `[{"tags[1]":"b"}]`},
		{"one object", `{"a": 1, "b": {"c": 2}, "d": 3}`, `{"fields":["a","b.c"]}`, `{"a":1,"c":2}`},
		{"field extracts", `[{"p": {"q": 1}}, {"p": {}}, 5]`, `{"field":"p.q"}`, `[1, null, null]`},
		{"field from one object", `{"p": {"q": [7, 8]}}`, `{"field":"p.q[1]"}`, `8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tdRun(t, tt.input, "select", tt.config)
			if err != nil {
				t.Fatal(err)
			}
			dtWantJSON(t, out, tt.want)
		})
	}
}

func TestTransformGroup(t *testing.T) {
	out, err := tdRun(t, tdUsers, "group", `{"field":"team"}`)
	if err != nil {
		t.Fatal(err)
	}
	groups := out.(map[string]any)
	got := map[string]string{}
	for k, v := range groups {
		got[k] = names(t, v)
	}
	want := map[string]string{"red": "ann,cy", "blue": "bob", "7": "di", "null": "ed"}
	if len(got) != len(want) {
		t.Errorf("groups %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("group %q = %q, want %q", k, got[k], v)
		}
	}
	out, err = tdRun(t, `[1, 1.0, "1", true, null, [1]]`, "group", `{"field":""}`)
	if err != nil {
		t.Fatal(err)
	}
	dtWantJSON(t, out, `{"1": [1, 1, "1"], "true": [true], "null": [null], "[1]": [[1]]}`)
}

func TestTransformAggregate(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"all ops", `{"operations":[{"op":"count"},{"op":"sum","field":"points"},{"op":"avg","field":"points"},{"op":"min","field":"age"},{"op":"max","field":"age","as":"oldest"},{"op":"count","field":"age"}]}`,
			`{"count":5,"sum_points":560,"avg_points":140,"min_age":31,"oldest":45,"count_age":4}`},
		{"nothing numeric", `{"operations":[{"op":"avg","field":"name"},{"op":"min","field":"name"},{"op":"sum","field":"name"}]}`,
			`{"avg_name":null,"min_name":null,"sum_name":0}`},
		{"grouped", `{"groupBy":"team","operations":[{"op":"count"},{"op":"sum","field":"points","as":"total"}]}`,
			`[{"team":"red","count":2,"total":240},{"team":"blue","count":1,"total":200},{"team":7,"count":1,"total":0},{"team":null,"count":1,"total":120}]`},
		{"grouped by nested key", `{"groupBy":"profile.city","operations":[{"op":"count"}]}`,
			`[{"city":"Oslo","count":2},{"city":"Rome","count":1},{"city":null,"count":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tdRun(t, tdUsers, "aggregate", tt.config)
			if err != nil {
				t.Fatal(err)
			}
			dtWantJSON(t, out, tt.want)
		})
	}
	out, err := tdRun(t, `[]`, "aggregate", `{"operations":[{"op":"count"},{"op":"avg","field":"x"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	dtWantJSON(t, out, `{"count":0,"avg_x":null}`)
}

func TestTransformMap(t *testing.T) {
	tests := []struct{ name, input, config, want string }{
		{"expression", `[{"p": 2}, {"p": 3.5}]`, `{"expression":"item.p * 2 + index"}`, `[4, 8]`},
		{"expression builds objects", `[{"name": "ann", "tags": ["a"]}]`, `{"expression":"{n: upper(item.name), t: len(item.tags), i: index}"}`, `[{"n":"ANN","t":1,"i":0}]`},
		{"expression on one object", `{"a": 1}`, `{"expression":"item.a + 1"}`, `2`},
		{"fields", `[{"user": {"name": "ann"}, "x": [1, 2]}, {}]`, `{"fields":{"name":"user.name","second":"x[1]"}}`, `[{"name":"ann","second":2},{"name":null,"second":null}]`},
		{"fields on one object", `{"a": {"b": 1}}`, `{"fields":{"b":"a.b","all":""}}`, `{"b":1,"all":{"a":{"b":1}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tdRun(t, tt.input, "map", tt.config)
			if err != nil {
				t.Fatal(err)
			}
			dtWantJSON(t, out, tt.want)
		})
	}
}

func TestTransformMapErrors(t *testing.T) {
	t.Run("runtime error names the element", func(t *testing.T) {
		_, err := tdRun(t, `[{"a": "x"}, {"a": 1}]`, "map", `{"expression":"upper(item.a)"}`)
		dtDataError(t, err, "element 1", "/workflow/in")
	})
	t.Run("timeout over a huge input", func(t *testing.T) {
		items := make([]string, 20000)
		for i := range items {
			items[i] = `{"a": [1, 2, 3, 4, 5, 6, 7, 8]}`
		}
		m := dtModel(t, "", map[string]string{"in": "[" + strings.Join(items, ",") + "]"})
		o := dtBuild(t, op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"map","config":{"expression":"sum(map(item.a, # * 2))"},"outputPath":"/workflow/out"}`)
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
		defer cancel()
		_, err := o.Run(ctx, dtRC(m))
		fe, ok := fault.As(err)
		if !ok || fe.SpecType() != fault.TimeoutError || fe.Kind != fault.Timeout {
			t.Fatalf("want TimeoutError, got %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		m := dtModel(t, "", map[string]string{"in": `[1, 2]`})
		o := dtBuild(t, op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"map","config":{"expression":"item"},"outputPath":"/workflow/out"}`)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := o.Run(ctx, dtRC(m)); err != context.Canceled {
			t.Errorf("want context.Canceled, got %v", err)
		}
	})
}

func TestTransformRunErrors(t *testing.T) {
	tests := []struct{ name, input, transform, config, msg string }{
		{"sort needs an array", `{"a": 1}`, "sort", `{"field":"a"}`, "/workflow/in is an object, TransformData sort needs an array"},
		{"group needs an array", `"x"`, "group", `{"field":"a"}`, "is a string"},
		{"aggregate needs an array", `3`, "aggregate", `{"operations":[{"op":"count"}]}`, "is a number"},
		{"select fields needs objects", `[{"a": 1}, 2]`, "select", `{"fields":["a"]}`, "element 1"},
		{"select needs array or object", `true`, "select", `{"field":"a"}`, "array or an object"},
		{"map needs array or object", `null`, "map", `{"fields":{"a":"a"}}`, "is null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tdRun(t, tt.input, tt.transform, tt.config)
			dtDataError(t, err, tt.msg)
		})
	}
	m := dtModel(t, "", nil)
	o := dtBuild(t, op.TransformDataOp, `{"inputPath":"/workflow/none","transform":"sort","config":{"field":"a"},"outputPath":"/workflow/o"}`)
	_, err := dtRun(t, o, m)
	dtDataError(t, err, "/workflow/none")
}

func TestTransformConfigErrors(t *testing.T) {
	cfg := func(transform, config string) string {
		return `{"inputPath":"/workflow/in","transform":"` + transform + `","config":` + config + `,"outputPath":"/workflow/out"}`
	}
	const c = "operation.TransformData.config"
	tests := []struct{ name, cfg, path string }{
		{"unknown transform", cfg("pivot", `{}`), "operation.TransformData.transform"},
		{"missing transform", `{"inputPath":"/workflow/in","outputPath":"/workflow/out"}`, "operation.TransformData.transform"},
		{"missing config", `{"inputPath":"/workflow/in","transform":"sort","outputPath":"/workflow/out"}`, c},
		{"config not an object", cfg("sort", `"points"`), c},
		{"bad input path", `{"inputPath":"workflow/in","transform":"sort","config":{"field":"a"},"outputPath":"/workflow/out"}`, "operation.TransformData.inputPath"},
		{"sort bad order", cfg("sort", `{"field":"a","order":"up"}`), c + ".order"},
		{"sort bad field", cfg("sort", `{"field":"a..b"}`), c + ".field"},
		{"sort unknown key", cfg("sort", `{"field":"a","by":"x"}`), c + ".by"},
		{"select nothing", cfg("select", `{}`), c},
		{"select both", cfg("select", `{"fields":["a"],"field":"a"}`), c},
		{"select empty fields", cfg("select", `{"fields":[]}`), c + ".fields"},
		{"select bad field", cfg("select", `{"fields":["a","b["]}`), c + ".fields[1]"},
		{"select empty field", cfg("select", `{"fields":[""]}`), c + ".fields[0]"},
		{"select twice", cfg("select", `{"fields":["a","a"]}`), c + ".fields[1]"},
		{"group bad field", cfg("group", `{"field":"[x]"}`), c + ".field"},
		{"aggregate no ops", cfg("aggregate", `{"operations":[]}`), c + ".operations"},
		{"aggregate bad op", cfg("aggregate", `{"operations":[{"op":"median","field":"a"}]}`), c + ".operations[0].op"},
		{"aggregate sum needs field", cfg("aggregate", `{"operations":[{"op":"count"},{"op":"sum"}]}`), c + ".operations[1].field"},
		{"aggregate duplicate as", cfg("aggregate", `{"operations":[{"op":"sum","field":"a","as":"x"},{"op":"max","field":"a","as":"x"}]}`), c + ".operations[1].as"},
		{"aggregate as hides groupBy", cfg("aggregate", `{"groupBy":"team","operations":[{"op":"count","as":"team"}]}`), c + ".operations[0].as"},
		{"aggregate bad groupBy", cfg("aggregate", `{"groupBy":"a.","operations":[{"op":"count"}]}`), c + ".groupBy"},
		{"map nothing", cfg("map", `{}`), c},
		{"map both", cfg("map", `{"expression":"item","fields":{"a":"a"}}`), c},
		{"map empty fields", cfg("map", `{"fields":{}}`), c + ".fields"},
		{"map bad field path", cfg("map", `{"fields":{"a":"b..c"}}`), c + ".fields.a"},
		{"map expression does not compile", cfg("map", `{"expression":"item.("}`), c + ".expression"},
		{"map expression too long", cfg("map", `{"expression":"`+strings.Repeat("1+", 2100)+`1"}`), c + ".expression"},
		{"map expression uses the clock", cfg("map", `{"expression":"now()"}`), c + ".expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { dtConfigError(t, op.TransformDataOp, nil, tt.cfg, tt.path) })
	}
	t.Run("expression limit from deps", func(t *testing.T) {
		d := dtDeps()
		d.Limits.MaxExprLength = 10
		dtConfigError(t, op.TransformDataOp, d, cfg("map", `{"expression":"item.a + item.b"}`), c+".expression")
	})
}

func TestTransformReadsWrites(t *testing.T) {
	o := dtBuild(t, op.TransformDataOp, `{"inputPath":"/input/x","transform":"group","config":{"field":"a"},"outputPath":"/workflow/g"}`)
	if r := o.(op.Reader).Reads(); len(r) != 1 || r[0].String() != "/input/x" {
		t.Errorf("Reads() = %v", r)
	}
	if w, ok := o.(op.Writer).Writes(); !ok || w.String() != "/workflow/g" {
		t.Errorf("Writes() = %v %v", w, ok)
	}
}

func TestTransformAggregateCancelled(t *testing.T) {
	items := strings.TrimSuffix(strings.Repeat(`{"a": 1},`, 5000), ",")
	m := dtModel(t, "", map[string]string{"in": "[" + items + "]"})
	for _, cfg := range []string{`{"operations":[{"op":"count"}]}`, `{"groupBy":"a","operations":[{"op":"count"}]}`} {
		o := dtBuild(t, op.TransformDataOp, `{"inputPath":"/workflow/in","transform":"aggregate","config":`+cfg+`,"outputPath":"/workflow/out"}`)
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		_, err := o.Run(ctx, dtRC(m))
		cancel()
		if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.TimeoutError {
			t.Errorf("%s: want TimeoutError, got %v", cfg, err)
		}
	}
}
