package gateway_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const openAPIBase = "https://sluice.invalid/openapi.json"

// apiSchemas validates answers against /openapi.json's response schemas.
type apiSchemas struct {
	t     *testing.T
	c     *jsonschema.Compiler
	doc   map[string]any
	paths []pathPattern
	seen  map[string]bool
}

type pathPattern struct {
	template string
	re       *regexp.Regexp
}

func loadAPISchemas(t *testing.T, s *testServer) *apiSchemas {
	r := s.call("GET", "/openapi.json", "", nil).want(t, 200)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(openAPIBase, doc); err != nil {
		t.Fatal(err)
	}
	a := &apiSchemas{t: t, c: c, doc: doc.(map[string]any), seen: map[string]bool{}}
	for p := range a.doc["paths"].(map[string]any) {
		re := "^" + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$"
		a.paths = append(a.paths, pathPattern{template: p, re: regexp.MustCompile(re)})
	}
	return a
}

// check validates r (an answer to method path) against the documented
// schema of its status; an undocumented status fails.
func (a *apiSchemas) check(method, path string, r response) {
	a.t.Helper()
	path, _, _ = strings.Cut(path, "?")
	var tmpl string
	for _, p := range a.paths {
		if p.re.MatchString(path) && (tmpl == "" || !strings.Contains(p.template, "{")) {
			tmpl = p.template
		}
	}
	if tmpl == "" {
		a.t.Fatalf("%s %s is not documented", method, path)
	}
	op, ok := a.doc["paths"].(map[string]any)[tmpl].(map[string]any)[strings.ToLower(method)].(map[string]any)
	if !ok {
		a.t.Fatalf("%s %s is not documented", method, tmpl)
	}
	code := strconv.Itoa(r.status)
	resp, ok := op["responses"].(map[string]any)[code].(map[string]any)
	if !ok {
		a.t.Fatalf("%s %s answered %d, which is not documented: %s", method, tmpl, r.status, r.raw)
	}
	loc := "#/paths/" + escapePointer(tmpl) + "/" + strings.ToLower(method) + "/responses/" + code
	if ref, isRef := resp["$ref"].(string); isRef {
		name := strings.TrimPrefix(ref, "#/components/responses/")
		resp = a.doc["components"].(map[string]any)["responses"].(map[string]any)[name].(map[string]any)
		loc = "#/components/responses/" + name
	}
	content, ok := resp["content"].(map[string]any)["application/json"]
	if !ok || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		return // not a JSON answer (SSE, metrics)
	}
	_ = content
	sch, err := a.c.Compile(openAPIBase + loc + "/content/application~1json/schema")
	if err != nil {
		a.t.Fatalf("schema of %s %s %s: %v", method, tmpl, code, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.raw))
	if err != nil {
		a.t.Fatalf("%s %s: answer is not JSON: %s", method, path, r.raw)
	}
	if err := sch.Validate(inst); err != nil {
		a.t.Errorf("%s %s %d does not match its documented schema: %v\n%s", method, tmpl, r.status, err, r.raw)
	}
	a.seen[method+" "+tmpl] = true
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// TestAnswersMatchOpenAPI drives every route and validates each answer.
func TestAnswersMatchOpenAPI(t *testing.T) {
	s := newServer(t)
	a := loadAPISchemas(t, s)
	up := upstreamJSON(t, usersJSON)
	call := func(method, path, key string, body any) response {
		r := s.call(method, path, key, body)
		a.check(method, path, r)
		return r
	}
	call("GET", "/health", "", nil)
	call("GET", "/ready", "", nil)
	call("GET", "/openapi.json", "", nil)
	call("GET", "/metrics", "", nil)

	acct := call("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"name": "a", "permissions": map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": []string{"c"}}, "limits": map[string]any{"requests_per_minute": 40}})
	id, key := acct.str("agent_id"), acct.str("api_key")
	call("GET", "/api/v1/admin/accounts", s.admin, nil)
	call("GET", "/api/v1/admin/accounts/"+id, s.admin, nil)
	call("GET", "/api/v1/admin/accounts/nobody", s.admin, nil)
	call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"name": "renamed"})
	k := call("POST", "/api/v1/admin/accounts/"+id+"/keys", s.admin, map[string]any{})
	call("GET", "/api/v1/admin/accounts/"+id+"/keys", s.admin, nil)
	call("DELETE", "/api/v1/admin/accounts/"+id+"/keys/"+k.str("key_id"), s.admin, nil)
	call("PUT", "/api/v1/admin/credentials/c", s.admin, map[string]any{"type": "api-key", "value": "v-1234567"})
	call("GET", "/api/v1/admin/credentials", s.admin, nil)
	call("GET", "/api/v1/admin/credentials/c", s.admin, nil)
	call("GET", "/api/v1/admin/accounts", key, nil) // 403

	call("GET", "/api/v1/capabilities", key, nil)
	call("GET", "/api/v1/capabilities", "", nil) // 401
	call("GET", "/api/v1/rate-limit/status", key, nil)
	call("POST", "/api/v1/workflows/validate", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", "")})
	call("POST", "/api/v1/workflows/validate", key, "{bad")
	ex := call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", "")})
	call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": "{}"}) // 400 validate body
	call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", ""), "validate": true})
	call("GET", "/api/v1/knowledge/bases", key, nil)
	call("GET", "/api/v1/knowledge/bases?kind=text", key, nil) // 400
	call("GET", "/api/v1/knowledge/bases", "", nil)            // 401
	call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", ex.str("execution_id")[:0]+"dup-1")})
	call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/v", "dup-1")}) // 409
	q := call("POST", "/api/v1/workflows/execute?async=true", key, map[string]any{"workflow": waitDoc(30000)})
	call("GET", "/api/v1/executions", key, nil)
	call("GET", "/api/v1/executions/"+ex.str("execution_id"), key, nil)
	call("GET", "/api/v1/executions/exec-nope", key, nil)
	call("POST", "/api/v1/executions/"+q.str("execution_id")+"/cancel", key, nil)
	call("POST", "/api/v1/executions/"+q.str("execution_id")+"/cancel", key, nil) // 409
	call("GET", "/api/v1/executions/exec-nope/events", key, nil)
	call("DELETE", "/api/v1/admin/credentials/c", s.admin, nil)
	for range 40 {
		if r := call("GET", "/api/v1/capabilities", key, nil); r.status == http.StatusTooManyRequests {
			break
		}
	}
	if len(a.seen) < 20 { // all but metrics, SSE and the NDJSON endpoint
		t.Fatalf("only %d route answers validated", len(a.seen))
	}
}
