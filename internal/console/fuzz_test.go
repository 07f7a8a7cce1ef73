package console

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// The console decodes what a browser posts (a generated form's fields) and
// what a run's question says (its expected answer's schema), and renders
// any JSON a run returned: none of it may panic, and the viewer stays
// bounded and escaped whatever the value.

func FuzzAnswerForm(f *testing.F) {
	f.Add("field.verdict=yes&type.verdict=string")
	f.Add("field.n=1.5&type.n=number&field.i=x&type.i=integer")
	f.Add("field.j=%7B%22a%22%3A1%7D&type.j=json&field.b=true&type.b=boolean")
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		out, problem := answerOf(form)
		if problem == "" {
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("answer %v does not encode: %v", out, err)
			}
		}
	})
}

func FuzzSchemaFields(f *testing.F) {
	f.Add(`{"type":"object","properties":{"verdict":{"type":"string","enum":["yes","no"]}},"required":["verdict"]}`)
	f.Add(`{"type":"object","properties":{"n":{"type":"number"},"x":{"type":"array"}}}`)
	f.Fuzz(func(t *testing.T, schema string) {
		var m map[string]any
		if json.Unmarshal([]byte(schema), &m) != nil {
			return
		}
		fields, ok := fieldsOf(m)
		if !ok && fields != nil {
			t.Fatalf("fields %v beside not ok", fields)
		}
		props, _ := m["properties"].(map[string]any)
		for _, fl := range fields {
			if _, ok := props[fl.Name]; !ok {
				t.Fatalf("field %q is no property of %s", fl.Name, schema)
			}
			if !strings.Contains(" string number integer boolean ", " "+fl.Type+" ") {
				t.Fatalf("field %q has type %q", fl.Name, fl.Type)
			}
		}
	})
}

func FuzzJSONView(f *testing.F) {
	f.Add(`{"a":[1,2,{"b":"<script>alert(1)</script>"}]}`)
	f.Add(`"` + strings.Repeat("x", 5000) + `"`)
	f.Add(strings.Repeat("[", 100) + strings.Repeat("]", 100))
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		html := string(jsonView(v))
		if strings.Contains(html, "<script") {
			t.Fatalf("unescaped markup in %q", html)
		}
		if len(html) > 64*(jsonMaxNodes+1)+jsonMaxNodes*(jsonMaxString*6+200) {
			t.Fatalf("%d bytes of HTML for %d bytes of JSON", len(html), len(doc))
		}
	})
}
