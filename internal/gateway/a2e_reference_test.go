package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// The A2E reference client (github.com/MauricioPerera/a2e,
// client/a2e_client.py) sends {"workflow": …, "validate": true} on every
// execute. sluice takes validate and validates whatever it says.
func TestExecuteTakesValidate(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, usersJSON)
	_, key := s.anyAccount()
	for _, v := range []any{true, false, "true"} {
		r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", ""), "validate": v}).want(t, http.StatusOK)
		if r.str("status") != "success" {
			t.Fatalf("validate %v: %s", v, r.raw)
		}
	}
	// false skips nothing: an invalid workflow is still refused, with the report.
	bad := jsonl(`{"type":"operationUpdate","operationId":"x","operation":{"NoSuchOp":{}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["x"]}`)
	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": bad, "validate": false}).want(t, http.StatusBadRequest)
	if r.get("valid") != false || !strings.Contains(string(r.raw), "NoSuchOp") {
		t.Fatalf("validate false ran an invalid workflow: %s", r.raw)
	}
	// A value that is not a boolean is named.
	r = s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": fetchDoc(up.URL+"/u", ""), "validate": "maybe"}).want(t, http.StatusBadRequest)
	if !strings.Contains(r.str("error.message"), "params.validate") {
		t.Fatalf("bad validate: %s", r.raw)
	}
}

// GET /api/v1/knowledge/bases lists the text knowledge bases an account's
// knowledge_bases grants cover, in the reference's shape.
func TestKnowledgeBasesList(t *testing.T) {
	s := newServer(t)
	a := loadAPISchemas(t, s)
	up := upstreamJSON(t, `[]`)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "guide", "kind": "text", "format": "markdown", "document": refundsGuide}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "faq", "kind": "text", "document": "Opening hours are nine to five.\n"}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": crmOpenAPI(up.URL)}).want(t, http.StatusCreated)

	list := func(key string) response {
		t.Helper()
		r := s.call("GET", "/api/v1/knowledge/bases", key, nil).want(t, http.StatusOK)
		a.check("GET", "/api/v1/knowledge/bases", r)
		return r
	}
	ids := func(r response) string {
		var out []string
		for _, kb := range r.get("knowledgeBases").([]any) {
			out = append(out, kb.(map[string]any)["id"].(string))
		}
		return strings.Join(out, ",")
	}

	_, one := s.account(map[string]any{"knowledge_bases": []string{"guide", "absent"}}, nil)
	r := list(one)
	if ids(r) != "guide" || r.get("count") != float64(1) {
		t.Fatalf("granted guide: %s", r.raw)
	}
	kb := r.get("knowledgeBases").([]any)[0].(map[string]any)
	if kb["type"] != "knowledge" || kb["description"] != "Refunds" || kb["items_count"] != float64(2) || kb["format"] != "markdown" {
		t.Fatalf("item: %s", r.raw)
	}
	// Its id and type, passed back to search, find its sections.
	found := s.call("POST", "/api/v1/knowledge/search", one, map[string]any{"query": "manager approval", "kb_id": kb["id"], "type": kb["type"]}).want(t, http.StatusOK)
	if !strings.Contains(string(found.raw), `"id":"guide#0"`) {
		t.Fatalf("search with the listed id and type: %s", found.raw)
	}

	// "*" covers every text base; an OpenAPI base (apis grants) is not listed.
	_, all := s.account(map[string]any{"knowledge_bases": []string{"*"}, "apis": []string{"crm"}}, nil)
	if r := list(all); ids(r) != "faq,guide" {
		t.Fatalf("granted *: %s", r.raw)
	}
	if kb := list(all).get("knowledgeBases").([]any)[0].(map[string]any); kb["description"] != "faq" {
		t.Fatalf("text before any heading is titled by the name: %v", kb)
	}
	// No grant (an admin included), or a grant that names an OpenAPI base: none.
	_, none := s.account(map[string]any{"operations": []string{"*"}, "knowledge_bases": []string{"crm"}}, nil)
	for _, key := range []string{none, s.admin} {
		if r := list(key); ids(r) != "" || r.get("count") != float64(0) || string(r.raw) != `{"count":0,"knowledgeBases":[]}`+"\n" {
			t.Fatalf("without a grant: %s", r.raw)
		}
	}

	// Deleted, it is gone from the list.
	s.call("DELETE", "/api/v1/admin/apis/guide", s.admin, nil).want(t, http.StatusOK)
	if r := list(one); ids(r) != "" {
		t.Fatalf("after delete: %s", r.raw)
	}

	// Bad input is named; no key is refused.
	bad := s.call("GET", "/api/v1/knowledge/bases?kb_id=guide", one, nil).want(t, http.StatusBadRequest)
	if !strings.Contains(bad.str("error.message"), "params.kb_id") {
		t.Fatalf("unknown parameter: %s", bad.raw)
	}
	s.call("GET", "/api/v1/knowledge/bases", "", nil).want(t, http.StatusUnauthorized)
}

// sluice keeps no SQL query library: the reference's three routes answer so,
// in its shapes, through the dispatcher like every call.
func TestSQLQueriesAnswerNone(t *testing.T) {
	s := newServer(t)
	a := loadAPISchemas(t, s)
	_, key := s.account(map[string]any{"operations": []string{"*"}}, nil)
	call := func(method, path, key string, body any, status int) response {
		t.Helper()
		r := s.call(method, path, key, body).want(t, status)
		a.check(method, path, r)
		return r
	}
	r := call("POST", "/api/v1/sql-queries/search", key, map[string]any{"query": "active users", "database": nil, "category": "users", "top_k": 5}, http.StatusOK)
	if string(r.raw) != `{"count":0,"query":"active users","results":[]}`+"\n" {
		t.Fatalf("search: %s", r.raw)
	}
	if r := call("GET", "/api/v1/sql-queries?database=main", key, nil, http.StatusOK); string(r.raw) != `{"count":0,"sqlQueries":[]}`+"\n" {
		t.Fatalf("list: %s", r.raw)
	}
	if r := call("GET", "/api/v1/sql-queries/active-users", key, nil, http.StatusNotFound); r.str("error.details.id") != "active-users" {
		t.Fatalf("get: %s", r.raw)
	}
	for _, c := range []struct {
		method, path string
		body         any
		param        string
	}{
		{"POST", "/api/v1/sql-queries/search", map[string]any{"database": "main"}, "params.query"},
		{"POST", "/api/v1/sql-queries/search", map[string]any{"query": "x", "top_k": 0}, "params.top_k"},
		{"POST", "/api/v1/sql-queries/search", map[string]any{"query": "x", "dialect": "pg"}, "params.dialect"},
		{"GET", "/api/v1/sql-queries?db=main", nil, "params.db"},
	} {
		if r := call(c.method, c.path, key, c.body, http.StatusBadRequest); !strings.Contains(r.str("error.message"), c.param) {
			t.Errorf("%s %s: %s", c.method, c.path, r.raw)
		}
	}
	// The capabilities say so with the reference's flag, with a query or without.
	for _, path := range []string{"/api/v1/capabilities", "/api/v1/capabilities?query=users"} {
		if r := call("GET", path, key, nil, http.StatusOK); r.get("capabilities.sqlQueriesAvailable") != false {
			t.Errorf("%s: %s", path, r.raw)
		}
	}
	call("GET", "/api/v1/sql-queries", "", nil, http.StatusUnauthorized)
	call("POST", "/api/v1/sql-queries/search", "", map[string]any{"query": "x"}, http.StatusUnauthorized)
}
