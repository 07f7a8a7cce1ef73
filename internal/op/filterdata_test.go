package op_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/op"
)

const filterUsers = `[
	{"name": "ann", "status": "active", "points": 150, "profile": {"age": 31}, "tags": ["admin", "dev"]},
	{"name": "bob", "status": "inactive", "points": 200, "profile": {"age": 17}, "tags": ["dev"]},
	{"name": "cy", "status": "active", "points": 90.0, "tags": []},
	{"name": "di", "status": "active", "points": "120", "profile": {"age": 45}},
	{"name": "ed", "points": 100}
]`

func TestFilterData(t *testing.T) {
	tests := []struct {
		name, conditions, want string
	}{
		{"spec example", `[{"field":"points","operator":">","value":100},{"field":"status","operator":"==","value":"active"}]`, `["ann"]`},
		{"number equals float", `[{"field":"points","operator":"==","value":90}]`, `["cy"]`},
		{"string number is not a number", `[{"field":"points","operator":">=","value":100}]`, `["ann","bob","ed"]`},
		{"missing field reads as null", `[{"field":"status","operator":"==","value":null}]`, `["ed"]`},
		{"missing field is != a string", `[{"field":"status","operator":"!=","value":"active"}]`, `["bob","ed"]`},
		{"dotted field", `[{"field":"profile.age","operator":">=","value":18}]`, `["ann","di"]`},
		{"indexed field", `[{"field":"tags[0]","operator":"==","value":"dev"}]`, `["bob"]`},
		{"in", `[{"field":"name","operator":"in","value":["bob","ed","zed"]}]`, `["bob","ed"]`},
		{"contains in array", `[{"field":"tags","operator":"contains","value":"admin"}]`, `["ann"]`},
		{"contains substring", `[{"field":"status","operator":"contains","value":"act"}]`, `["ann","bob","cy","di"]`},
		{"startsWith", `[{"field":"status","operator":"startsWith","value":"in"}]`, `["bob"]`},
		{"endsWith", `[{"field":"name","operator":"endsWith","value":"y"}]`, `["cy"]`},
		{"path value", `[{"field":"points","operator":">","value":{"path":"/workflow/threshold"}}]`, `["ann","bob"]`},
		{"none match", `[{"field":"points","operator":">","value":1000}]`, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := dtModel(t, "", map[string]string{"users": filterUsers, "threshold": "140"})
			o := dtBuild(t, op.FilterDataOp, `{"inputPath":"/workflow/users","conditions":`+tt.conditions+`,"outputPath":"/workflow/out"}`)
			out, err := dtRun(t, o, m)
			if err != nil {
				t.Fatal(err)
			}
			var names []any
			for _, u := range out.([]any) {
				names = append(names, u.(map[string]any)["name"])
			}
			if names == nil {
				names = []any{}
			}
			dtWantJSON(t, names, tt.want)
		})
	}
}

func TestFilterDataKeepsItemsAsTheyAre(t *testing.T) {
	m := dtModel(t, "", map[string]string{"users": filterUsers})
	o := dtBuild(t, op.FilterDataOp, `{"inputPath":"/workflow/users","conditions":[{"field":"name","operator":"==","value":"ann"}],"outputPath":"/workflow/out"}`)
	out, err := dtRun(t, o, m)
	if err != nil {
		t.Fatal(err)
	}
	users, _ := m.GetString("/workflow/users")
	if !reflect.DeepEqual(out.([]any)[0], users.([]any)[0]) {
		t.Errorf("filtered item differs from the input item")
	}
}

func TestFilterDataRunErrors(t *testing.T) {
	m := dtModel(t, `{"list": [1]}`, map[string]string{"users": `{"a": 1}`, "s": `"text"`})
	tests := []struct {
		name, cfg string
		parts     []string
	}{
		{"object input", `{"inputPath":"/workflow/users","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/o"}`,
			[]string{"/workflow/users is an object, FilterData needs an array"}},
		{"string input", `{"inputPath":"/workflow/s","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/o"}`,
			[]string{"/workflow/s is a string"}},
		{"missing input", `{"inputPath":"/workflow/nope","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/o"}`,
			[]string{"/workflow/nope"}},
		{"missing value path", `{"inputPath":"/input/list","conditions":[{"field":"","operator":"==","value":{"path":"/workflow/gone"}}],"outputPath":"/workflow/o"}`,
			[]string{"/workflow/gone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dtRun(t, dtBuild(t, op.FilterDataOp, tt.cfg), m)
			dtDataError(t, err, tt.parts...)
		})
	}
}

func TestFilterDataConfigErrors(t *testing.T) {
	const in, out = `"inputPath":"/workflow/u"`, `"outputPath":"/workflow/o"`
	cond := `"conditions":[{"field":"a","operator":"==","value":1}]`
	many := `"conditions":[` + strings.TrimSuffix(strings.Repeat(`{"field":"a","operator":"==","value":1},`, 65), ",") + `]`
	tests := []struct{ name, cfg, path string }{
		{"not an object", `[]`, "operation.FilterData"},
		{"empty", ``, "operation.FilterData"},
		{"unknown field", `{` + in + `,` + cond + `,` + out + `,"extra":1}`, "operation.FilterData.extra"},
		{"wrong type", `{"inputPath":5,` + cond + `,` + out + `}`, "operation.FilterData.inputPath"},
		{"missing inputPath", `{` + cond + `,` + out + `}`, "operation.FilterData.inputPath"},
		{"bad inputPath", `{"inputPath":"/work/u",` + cond + `,` + out + `}`, "operation.FilterData.inputPath"},
		{"outputPath under input", `{` + in + `,` + cond + `,"outputPath":"/input/x"}`, "operation.FilterData.outputPath"},
		{"missing outputPath", `{` + in + `,` + cond + `}`, "operation.FilterData.outputPath"},
		{"no conditions", `{` + in + `,` + out + `}`, "operation.FilterData.conditions"},
		{"empty conditions", `{` + in + `,"conditions":[],` + out + `}`, "operation.FilterData.conditions"},
		{"too many conditions", `{` + in + `,` + many + `,` + out + `}`, "operation.FilterData.conditions"},
		{"bad operator", `{` + in + `,"conditions":[{"field":"a","operator":"==","value":1},{"field":"a","operator":"like","value":1}],` + out + `}`, "operation.FilterData.conditions[1].operator"},
		{"exists is Conditional only", `{` + in + `,"conditions":[{"field":"a","operator":"exists"}],` + out + `}`, "operation.FilterData.conditions[0].operator"},
		{"missing value", `{` + in + `,"conditions":[{"field":"a","operator":">"}],` + out + `}`, "operation.FilterData.conditions[0].value"},
		{"bad field", `{` + in + `,"conditions":[{"field":"a[x]","operator":"==","value":1}],` + out + `}`, "operation.FilterData.conditions[0].field"},
		{"unknown condition key", `{` + in + `,"conditions":[{"field":"a","operator":"==","value":1,"op":"x"}],` + out + `}`, "operation.FilterData.conditions[0].op"},
		{"bad timeout", `{` + in + `,` + cond + `,` + out + `,"timeout":0}`, "operation.FilterData.timeout"},
		{"bad retry", `{` + in + `,` + cond + `,` + out + `,"retry":{"maxRetries":11}}`, "operation.FilterData.retry.maxRetries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { dtConfigError(t, op.FilterDataOp, nil, tt.cfg, tt.path) })
	}
}

func TestFilterDataReadsWrites(t *testing.T) {
	o := dtBuild(t, op.FilterDataOp, `{"inputPath":"/workflow/u","conditions":[{"field":"a","operator":"==","value":{"path":"/input/x"}}],"outputPath":"/workflow/o.p"}`)
	var reads []string
	for _, p := range o.(op.Reader).Reads() {
		reads = append(reads, p.String())
	}
	if strings.Join(reads, " ") != "/workflow/u /input/x" {
		t.Errorf("Reads() = %v", reads)
	}
	w, ok := o.(op.Writer).Writes()
	if !ok || w.String() != "/workflow/o.p" {
		t.Errorf("Writes() = %v, %v", w, ok)
	}
}

func TestFilterDataCancelled(t *testing.T) {
	items := make([]string, 10000)
	for i := range items {
		items[i] = `{"a": 1}`
	}
	m := dtModel(t, "", map[string]string{"u": "[" + strings.Join(items, ",") + "]"})
	o := dtBuild(t, op.FilterDataOp, `{"inputPath":"/workflow/u","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/o"}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Run(ctx, dtRC(m)); err != context.Canceled {
		t.Errorf("want context.Canceled, got %v", err)
	}
}
