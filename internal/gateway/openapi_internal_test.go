package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// The OpenAPI document names exactly the routes the mux serves, each with the
// gateway method it is dispatched as for its operationId.
func TestOpenAPIMatchesRouteTable(t *testing.T) {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	var documented, served []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
			for _, rt := range routes {
				if openAPIPath(rt.pattern) == path && rt.method == strings.ToUpper(method) && rt.rpc != "" && rt.rpc != op.OperationID {
					t.Errorf("%s %s: operationId %q, but it is dispatched as %q", method, path, op.OperationID, rt.rpc)
				}
			}
		}
	}
	for _, rt := range routes {
		served = append(served, rt.method+" "+openAPIPath(rt.pattern))
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("documented routes\n  %v\nserved routes\n  %v", documented, served)
	}
}

// Each method route's operation in openapi.json says what the method table
// says: its success status, its path parameters, and its other parameters
// (query parameters, and the properties of the JSON body where the document
// lists them), which are required in both or in neither, of the same type
// and with the same integer bounds.
func TestOpenAPIMatchesMethodTable(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range methodTable {
		for _, r := range m.rest {
			t.Run(r.verb+" "+r.pattern, func(t *testing.T) {
				op, _ := jsonAt(doc, "paths", openAPIPath(r.pattern), strings.ToLower(r.verb)).(map[string]any)
				if op == nil {
					t.Fatal("not documented")
				}
				checkOpenAPIOperation(t, doc, m, r, op)
			})
		}
	}
}

func checkOpenAPIOperation(t *testing.T, doc map[string]any, m methodSpec, r restRoute, op map[string]any) {
	ok := r.ok
	if ok == 0 {
		ok = http.StatusOK
	}
	// A method that never succeeds (sql_queries.get: sluice keeps no SQL
	// queries) documents no success; an asynchronous execute is also 202.
	var successes []int
	for code := range asMap(op["responses"]) {
		if n, _ := strconv.Atoi(code); n >= 200 && n < 300 {
			successes = append(successes, n)
		}
	}
	for _, n := range successes {
		if n != ok && !(m.name == e2a.MethodWorkflowExecute && n == http.StatusAccepted) {
			t.Errorf("documents a success status %d; the table says %d", n, ok)
		}
	}
	if len(successes) > 0 && !slices.Contains(successes, ok) {
		t.Errorf("the success status %d is not documented", ok)
	}

	wildcards := pathWildcards(r.pattern)
	documented := map[string]bool{} // name -> required
	var inPath []string
	for _, p := range asList(op["parameters"]) {
		p := asMap(resolve(doc, p))
		name, _ := p["name"].(string)
		required, _ := p["required"].(bool)
		switch p["in"] {
		case "path":
			inPath = append(inPath, name)
		case "query":
			documented[name] = required
			checkOpenAPISchema(t, m, name, asMap(resolve(doc, p["schema"])), true)
		}
	}
	slices.Sort(inPath)
	if !slices.Equal(inPath, wildcards) {
		t.Errorf("path parameters %v, the pattern has %v", inPath, wildcards)
	}
	describesBody := false
	if schema := asMap(resolve(doc, jsonAt(op, "requestBody", "content", "application/json", "schema"))); schema["properties"] != nil {
		describesBody = true
		required := asList(schema["required"])
		for name, prop := range asMap(schema["properties"]) {
			documented[name] = slices.Contains(required, any(name))
			checkOpenAPISchema(t, m, name, asMap(resolve(doc, prop)), false)
		}
	}
	if m.rawParams {
		return // the body is the handler's document; the document describes it
	}
	for name, required := range documented {
		i := slices.IndexFunc(m.params, func(p param) bool { return p.name == name })
		switch {
		case i < 0:
			t.Errorf("documents parameter %s, which the method does not take", name)
		case m.params[i].required != required:
			t.Errorf("parameter %s: required %v in the document, %v in the table", name, required, m.params[i].required)
		}
	}
	// Every parameter the route can carry is documented: a GET or DELETE
	// takes the query, others their body where the document lists its
	// properties.
	if r.verb != http.MethodGet && r.verb != http.MethodDelete && !describesBody {
		return
	}
	for _, p := range m.params {
		if _, ok := documented[p.name]; !ok && !slices.Contains(wildcards, p.name) && !slices.Contains(wildcards, p.restPath) {
			t.Errorf("parameter %s is not documented", p.name)
		}
	}
}

// openAPITypes are the JSON schema types of each parameter kind; a list in
// a query string is one comma-separated string. The document may say more
// of a pAny parameter than the table (agent.workflow.run's input is an
// object, which the runner checks).
var openAPITypes = map[paramKind][]string{
	pString: {"string"}, pBool: {"boolean"}, pInt: {"integer"}, pSeconds: {"number"}, pObject: {"object"},
	pStrings: {"array"}, pTime: {"string"}, pWorkflow: {"oneOf"},
}

func checkOpenAPISchema(t *testing.T, m methodSpec, name string, schema map[string]any, inQuery bool) {
	i := slices.IndexFunc(m.params, func(p param) bool { return p.name == name })
	if i < 0 {
		return
	}
	p := m.params[i]
	types := asList(schema["type"])
	if s, ok := schema["type"].(string); ok {
		types = []any{s}
	}
	if schema["oneOf"] != nil {
		types = append(types, "oneOf")
	}
	if len(types) == 0 {
		types = []any{""}
	}
	want := openAPITypes[p.kind]
	if p.kind == pStrings && inQuery {
		want = []string{"string"}
	}
	if p.kind != pAny && !slices.ContainsFunc(types, func(v any) bool { s, _ := v.(string); return slices.Contains(want, s) }) {
		t.Errorf("parameter %s: type %v in the document, %v in the table", name, types, want)
	}
	if p.kind == pTime && schema["format"] != "date-time" {
		t.Errorf("parameter %s: a time, but not a date-time in the document", name)
	}
	if p.kind != pInt {
		return
	}
	for key, want := range map[string]int{"minimum": p.min, "maximum": p.max, "default": p.def} {
		if v, ok := schema[key].(float64); ok && int(v) != want {
			t.Errorf("parameter %s: %s %v in the document, %d in the table", name, key, v, want)
		}
	}
}

var wildcard = regexp.MustCompile(`\{([a-z_]+)(\.\.\.)?\}`)

func pathWildcards(pattern string) []string {
	out := []string{}
	for _, m := range wildcard.FindAllStringSubmatch(pattern, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// resolve follows a local $ref.
func resolve(doc map[string]any, v any) any {
	for range 10 {
		ref, _ := asMap(v)["$ref"].(string)
		if ref == "" {
			return v
		}
		v = jsonAt(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
	panic(fmt.Sprintf("a $ref cycle at %v", v))
}

func jsonAt(v any, keys ...string) any {
	for _, k := range keys {
		v = asMap(v)[k]
	}
	return v
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }

// openAPIPath writes a net/http pattern as OpenAPI does: a rest wildcard
// {name...} is the parameter {name}.
func openAPIPath(pattern string) string { return strings.ReplaceAll(pattern, "...}", "}") }
