package op_test

import (
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/internal/op"
)

func TestConditional(t *testing.T) {
	data := map[string]string{
		"count": `3`, "zero": `0`, "name": `"alice"`, "nothing": `null`, "blank": `""`,
		"list": `[1, 2]`, "none": `[]`, "obj": `{"a": {"b": 1}}`, "eobj": `{}`, "limit": `2`,
	}
	tests := []struct {
		name, condition string
		ifFalse         bool
		want            string
	}{
		{"spec example true", `{"path":"/workflow/count","operator":">","value":0}`, true, "ifTrue"},
		{"spec example false", `{"path":"/workflow/zero","operator":">","value":0}`, true, "ifFalse"},
		{"false without ifFalse", `{"path":"/workflow/zero","operator":">","value":0}`, false, "none"},
		{"==", `{"path":"/workflow/count","operator":"==","value":3.0}`, true, "ifTrue"},
		{"!=", `{"path":"/workflow/count","operator":"!=","value":"3"}`, true, "ifTrue"},
		{"<", `{"path":"/workflow/count","operator":"<","value":3}`, true, "ifFalse"},
		{">=", `{"path":"/workflow/count","operator":">=","value":3}`, true, "ifTrue"},
		{"<=", `{"path":"/workflow/name","operator":"<=","value":"bob"}`, true, "ifTrue"},
		{"in", `{"path":"/workflow/name","operator":"in","value":["bob","alice"]}`, true, "ifTrue"},
		{"contains string", `{"path":"/workflow/name","operator":"contains","value":"lic"}`, true, "ifTrue"},
		{"contains array", `{"path":"/workflow/list","operator":"contains","value":2}`, true, "ifTrue"},
		{"startsWith", `{"path":"/workflow/name","operator":"startsWith","value":"al"}`, true, "ifTrue"},
		{"endsWith", `{"path":"/workflow/name","operator":"endsWith","value":"al"}`, true, "ifFalse"},
		{"nested path", `{"path":"/workflow/obj.a.b","operator":"==","value":1}`, true, "ifTrue"},
		{"input path", `{"path":"/input/flag","operator":"==","value":true}`, true, "ifTrue"},
		{"path value", `{"path":"/workflow/count","operator":">","value":{"path":"/workflow/limit"}}`, true, "ifTrue"},
		{"type mismatch is false", `{"path":"/workflow/name","operator":">","value":1}`, true, "ifFalse"},
		{"missing path reads as null", `{"path":"/workflow/gone","operator":">","value":0}`, true, "ifFalse"},
		{"missing path equals null", `{"path":"/workflow/gone","operator":"==","value":null}`, true, "ifTrue"},
		{"missing nested path", `{"path":"/workflow/obj.x.y","operator":"!=","value":1}`, true, "ifTrue"},
		{"exists", `{"path":"/workflow/count","operator":"exists"}`, true, "ifTrue"},
		{"exists null", `{"path":"/workflow/nothing","operator":"exists"}`, true, "ifTrue"},
		{"exists missing", `{"path":"/workflow/gone","operator":"exists"}`, true, "ifFalse"},
		{"exists with null value", `{"path":"/workflow/gone","operator":"exists","value":null}`, false, "none"},
		{"empty missing", `{"path":"/workflow/gone","operator":"empty"}`, true, "ifTrue"},
		{"empty null", `{"path":"/workflow/nothing","operator":"empty"}`, true, "ifTrue"},
		{"empty string", `{"path":"/workflow/blank","operator":"empty"}`, true, "ifTrue"},
		{"empty array", `{"path":"/workflow/none","operator":"empty"}`, true, "ifTrue"},
		{"empty object", `{"path":"/workflow/eobj","operator":"empty"}`, true, "ifTrue"},
		{"not empty", `{"path":"/workflow/list","operator":"empty"}`, true, "ifFalse"},
		{"zero is not empty", `{"path":"/workflow/zero","operator":"empty"}`, true, "ifFalse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := `{"condition":` + tt.condition + `,"ifTrue":["yes-1","yes-2"]`
			if tt.ifFalse {
				cfg += `,"ifFalse":["no"]`
			}
			cfg += `}`
			m := dtModel(t, `{"flag": true}`, data)
			out, err := dtRun(t, dtBuild(t, op.ConditionalOp, cfg), m)
			if err != nil {
				t.Fatal(err)
			}
			b, ok := out.(op.Branch)
			if !ok {
				t.Fatalf("want op.Branch, got %T", out)
			}
			want := op.Branch{Name: tt.want}
			switch tt.want {
			case "ifTrue":
				want.Ops = []string{"yes-1", "yes-2"}
			case "ifFalse":
				want.Ops = []string{"no"}
			}
			if !reflect.DeepEqual(b, want) {
				t.Errorf("got %+v, want %+v", b, want)
			}
			dtWantJSON(t, op.BranchOutput(b), `{"branch":"`+tt.want+`"}`)
		})
	}
}

func TestConditionalRunErrors(t *testing.T) {
	m := dtModel(t, "", map[string]string{"count": `1`})
	o := dtBuild(t, op.ConditionalOp, `{"condition":{"path":"/workflow/count","operator":"==","value":{"path":"/workflow/gone"}},"ifTrue":["a"]}`)
	_, err := dtRun(t, o, m)
	dtDataError(t, err, "/workflow/gone")
}

func TestConditionalConfigErrors(t *testing.T) {
	const base = "operation.Conditional"
	tests := []struct{ name, cfg, path string }{
		{"no ifTrue", `{"condition":{"path":"/workflow/a","operator":"exists"}}`, base + ".ifTrue"},
		{"empty ifTrue", `{"condition":{"path":"/workflow/a","operator":"exists"},"ifTrue":[]}`, base + ".ifTrue"},
		{"bad id", `{"condition":{"path":"/workflow/a","operator":"exists"},"ifTrue":["ok","not ok"]}`, base + ".ifTrue[1]"},
		{"duplicate id", `{"condition":{"path":"/workflow/a","operator":"exists"},"ifTrue":["a"],"ifFalse":["b","b"]}`, base + ".ifFalse[1]"},
		{"ifTrue not an array", `{"condition":{"path":"/workflow/a","operator":"exists"},"ifTrue":"a"}`, base + ".ifTrue"},
		{"missing path", `{"condition":{"operator":"exists"},"ifTrue":["a"]}`, base + ".condition.path"},
		{"bad path", `{"condition":{"path":"/workflow","operator":"exists"},"ifTrue":["a"]}`, base + ".condition.path"},
		{"unknown operator", `{"condition":{"path":"/workflow/a","operator":"is"},"ifTrue":["a"]}`, base + ".condition.operator"},
		{"missing value", `{"condition":{"path":"/workflow/a","operator":"=="},"ifTrue":["a"]}`, base + ".condition.value"},
		{"exists with value", `{"condition":{"path":"/workflow/a","operator":"exists","value":true},"ifTrue":["a"]}`, base + ".condition.value"},
		{"unknown condition key", `{"condition":{"path":"/workflow/a","operator":"exists","field":"x"},"ifTrue":["a"]}`, base + ".condition.field"},
		{"bad outputPath", `{"condition":{"path":"/workflow/a","operator":"exists"},"ifTrue":["a"],"outputPath":"/input/x"}`, base + ".outputPath"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { dtConfigError(t, op.ConditionalOp, nil, tt.cfg, tt.path) })
	}
}

func TestConditionalReadsWrites(t *testing.T) {
	o := dtBuild(t, op.ConditionalOp, `{"condition":{"path":"/workflow/a","operator":"<","value":{"path":"/workflow/b"}},"ifTrue":["x"],"outputPath":"/workflow/d"}`)
	r := o.(op.Reader).Reads()
	if len(r) != 2 || r[0].String() != "/workflow/a" || r[1].String() != "/workflow/b" {
		t.Errorf("Reads() = %v", r)
	}
	if w, ok := o.(op.Writer).Writes(); !ok || w.String() != "/workflow/d" {
		t.Errorf("Writes() = %v %v", w, ok)
	}
	o = dtBuild(t, op.ConditionalOp, `{"condition":{"path":"/workflow/a","operator":"exists"},"ifTrue":["x"]}`)
	if _, ok := o.(op.Writer).Writes(); ok {
		t.Error("no outputPath, yet Writes() reports one")
	}
}
