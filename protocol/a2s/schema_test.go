package a2s_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/protocol/a2s"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(a2s.JSONSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("capability.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("capability.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance reads a document (YAML or JSON) into the values the validator
// takes, through our tree.
func instance(t *testing.T, file string, src []byte) any {
	t.Helper()
	tree, err := a2s.ParseTree(src, a2s.Options{File: file, Format: a2s.FormatOf(file)})
	if err != nil {
		t.Fatal(err)
	}
	return tree.Interface()
}

func TestSchemaAcceptsValidDocuments(t *testing.T) {
	s := compileSchema(t)
	files := []string{"testdata/weather.yaml", "testdata/weather.json", "testdata/model/dialects.yaml"}
	oks, _ := filepath.Glob("testdata/lint/*.ok.yaml")
	for _, f := range append(files, oks...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(instance(t, f, data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestSchemaRejectsBrokenDocuments(t *testing.T) {
	s := compileSchema(t)
	// Fixtures whose rule is about structure: the schema must refuse them.
	for _, rule := range []string{"A2S010", "A2S011", "A2S013", "A2S020", "A2S023", "A2S050", "A2S060", "A2S061", "A2S081"} {
		f := "testdata/lint/" + rule + ".yaml"
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(instance(t, f, data)); err == nil {
			t.Errorf("%s validates against the schema", f)
		}
	}
	weather, err := os.ReadFile("testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct{ name, old, new string }{
		{"two kinds in one step", "    - task: decideToPost\n", "    - task: decideToPost\n      parallel: []\n"},
		{"flow type", "  type: sequence\n", "  type: loop\n"},
		{"no tasks", "tasks:\n  - id: getWeather", "tasks: []\nx:\n  - id: getWeather"},
		{"both service keys", `    requires_service: "api.weather.com"`, "    requires_service: \"api.weather.com\"\n    service: api.weather.com"},
		{"two endpoints", "        /tweets:\n", "        /other: {}\n        /tweets:\n"},
		{"request pointer", `request: "#/requests/getWeatherRequest"`, `request: getWeatherRequest`},
		{"audit status", "status: audited", "status: done"},
		{"task id reserved", "- id: decideToPost", "- id: inputs"},
		{"dependency without version", "tasks:\n  - id: getWeather", "dependencies: {w: {id: W}}\ntasks:\n  - id: getWeather"},
	}
	for _, e := range edits {
		src := strings.Replace(string(weather), e.old, e.new, 1)
		if src == string(weather) {
			t.Fatalf("%s: edit does not apply", e.name)
		}
		if err := s.Validate(instance(t, "x.yaml", []byte(src))); err == nil {
			t.Errorf("%s: validates against the schema", e.name)
		}
	}
}

func TestSchemaIsACopy(t *testing.T) {
	a := a2s.JSONSchema()
	a[0] = 'x'
	if a2s.JSONSchema()[0] != '{' {
		t.Fatal("JSONSchema() must return a copy")
	}
}
