package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
)

func crmOpenAPI(server string) string {
	return fmt.Sprintf(`{"openapi":"3.0.1","info":{"title":"CRM","version":"1.0.0"},
"servers":[{"url":%q}],
"paths":{
 "/customers":{"get":{"operationId":"listCustomers","summary":"List customers","description":"Lists the customers of the account, newest first.","responses":{"200":{"description":"ok"}}}},
 "/customers/{id}/invoices":{"get":{"operationId":"listInvoices","summary":"List a customer's invoices","description":"Invoices of one customer, with their due dates and whether they are paid.","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}},{"name":"status","in":"query","description":"paid or unpaid","schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
 "/customers/{id}/notes":{"post":{"operationId":"addNote","summary":"Add a note to a customer","responses":{"200":{"description":"ok"}}}}
}}`, server)
}

const refundsGuide = `# Refunds
Refunds over 100 EUR need a manager's approval.

# Shipping
Parcels leave the warehouse within two working days.
`

func TestDiscoveryAndKnowledgeBases(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, `[{"id":"c1"}]`)
	// Importing is for admins; a document that is not OpenAPI is refused.
	_, plain := s.account(map[string]any{"operations": []string{"ApiCall"}}, nil)
	s.call("POST", "/api/v1/admin/apis", plain, map[string]any{"name": "crm", "document": crmOpenAPI(up.URL)}).want(t, http.StatusForbidden)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "bad", "document": "not an api"}).want(t, http.StatusBadRequest)
	r := s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": crmOpenAPI(up.URL)}).want(t, http.StatusCreated)
	if r.get("entries") != float64(3) || !strings.Contains(string(r.raw), strings.TrimPrefix(up.URL, "http://")) {
		t.Fatalf("import: %s", r.raw)
	}
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "guide", "kind": "text", "format": "markdown", "document": refundsGuide}).want(t, http.StatusCreated)
	if l := s.call("GET", "/api/v1/admin/apis", s.admin, nil).want(t, http.StatusOK); len(l.get("apis").([]any)) != 2 {
		t.Fatalf("list: %s", l.raw)
	}

	// An account granted the API (and not its host) sees its operations and may call them.
	_, key := s.account(map[string]any{"operations": []string{"ApiCall", "FilterData"}, "apis": []string{"crm"}, "knowledge_bases": []string{"guide"}}, nil)
	full := s.call("GET", "/api/v1/capabilities", key, nil).want(t, http.StatusOK)
	if n := len(full.get("capabilities.availableApis").([]any)); n != 3 || !strings.Contains(string(full.raw), `"id":"crm.listInvoices"`) {
		t.Fatalf("availableApis: %s", full.raw)
	}
	wf := jsonl(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"`+up.URL+`/customers","outputPath":"/workflow/c"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["get"]}`)
	if ex := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": wf}).want(t, http.StatusOK); ex.str("status") != "success" {
		t.Fatalf("a call to a granted API's host: %s", ex.raw)
	}
	// Without the grant, neither the entries nor the host.
	if none := s.call("GET", "/api/v1/capabilities", plain, nil).want(t, http.StatusOK); len(none.get("capabilities.availableApis").([]any)) != 0 {
		t.Fatalf("an account without the grant sees: %s", none.raw)
	}
	s.call("POST", "/api/v1/workflows/execute", plain, map[string]any{"workflow": wf}).want(t, http.StatusForbidden)

	// A query answers only what is relevant, ranked, and much smaller.
	// (The size ratio on a 300-operation catalog is measured by sluice bench
	// discovery; here the catalog has three operations.)
	q := s.call("GET", "/api/v1/capabilities?query=unpaid+invoices+of+a+customer&top_k=1", key, nil).want(t, http.StatusOK)
	matches, _ := q.get("capabilities.matches").([]any)
	apis, _ := q.get("capabilities.availableApis").([]any)
	if len(matches) != 1 || matches[0].(map[string]any)["id"] != "crm.listInvoices" || len(apis) != 1 || q.str("query") == "" {
		t.Fatalf("query: %s", q.raw)
	}
	// Knowledge search, within a knowledge base; nothing for an account without the grant.
	k := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": "manager approval for refunds", "kb_id": "guide", "top_k": 2}).want(t, http.StatusOK)
	res, _ := k.get("results").([]any)
	if len(res) == 0 || res[0].(map[string]any)["name"] != "Refunds" || !strings.Contains(fmt.Sprint(res[0]), "manager") {
		t.Fatalf("knowledge search: %s", k.raw)
	}
	if k := s.call("POST", "/api/v1/knowledge/search", plain, map[string]any{"query": "refunds"}).want(t, http.StatusOK); len(k.get("results").([]any)) != 0 {
		t.Fatalf("knowledge without the grant: %s", k.raw)
	}
	s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": "x", "type": "nonsense"}).want(t, http.StatusBadRequest)

	// Deleting a knowledge base takes its entries away.
	s.call("DELETE", "/api/v1/admin/apis/crm", s.admin, nil).want(t, http.StatusOK)
	s.call("DELETE", "/api/v1/admin/apis/crm", s.admin, nil).want(t, http.StatusNotFound)
	if after := s.call("GET", "/api/v1/capabilities", key, nil).want(t, http.StatusOK); len(after.get("capabilities.availableApis").([]any)) != 0 {
		t.Fatalf("after delete: %s", after.raw)
	}
}

// With an embeddings endpoint configured, ranking is hybrid: a paraphrase
// that shares no word with the entry is still found.
func TestDiscoveryWithEmbeddings(t *testing.T) {
	emb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if len(req.Input) > 2 {
			http.Error(w, "over discovery.embeddings.batch", http.StatusRequestEntityTooLarge)
			return
		}
		var data []map[string]any
		for i, text := range req.Input {
			v := []float64{0, 1}
			if l := strings.ToLower(text); strings.Contains(l, "vaccin") || strings.Contains(l, "shots") {
				v = []float64{1, 0}
			}
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer emb.Close()
	// vector_weight 0 is hybrid in name only: the vectors weigh nothing.
	for _, tc := range []struct {
		hybrid bool
		weight float64
	}{{false, 1}, {true, 1}, {true, 0}} {
		hybrid := tc.hybrid && tc.weight > 0
		s := newServer(t, func(c *config.Config) {
			c.Discovery.WordVectors = false // which would widen dog to pet: this is about the embeddings
			if tc.hybrid {
				// Batches of 2: the fake endpoint refuses more.
				c.Discovery.Embeddings = config.Embeddings{URL: emb.URL, Model: "fake", VectorWeight: tc.weight, Timeout: 5 * time.Second, Batch: 2}
			}
		})
		up := upstreamJSON(t, `{}`)
		doc := strings.ReplaceAll(crmOpenAPI(up.URL), `"/customers/{id}/notes"`, `"/pets/{id}/vaccinations":{"get":{"operationId":"listVaccinations","summary":"A pet's vaccination record","responses":{"200":{"description":"ok"}}}},"/customers/{id}/notes"`)
		s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": doc}).want(t, http.StatusCreated)
		_, key := s.account(map[string]any{"apis": []string{"crm"}}, nil)
		k := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": "which shots has my dog had", "top_k": 1}).want(t, http.StatusOK)
		res, _ := k.get("results").([]any)
		found := len(res) == 1 && res[0].(map[string]any)["id"] == "crm.listVaccinations"
		if found != hybrid {
			t.Fatalf("%+v: %s", tc, k.raw)
		}
	}
}

// discovery.wordnet: on by default, a query word the catalog lacks finds
// the entries of its WordNet synonym; off, it finds nothing.
func TestDiscoveryWordNetSetting(t *testing.T) {
	testExpansionSetting(t, "wordnet", func(c *config.Config, on bool) { c.Discovery.WordNet, c.Discovery.WordVectors = on, false })
}

// discovery.word_vectors: on by default, a query word the catalog lacks
// finds the entries of the catalog's words closest to it; off, nothing.
func TestDiscoveryWordVectorsSetting(t *testing.T) {
	testExpansionSetting(t, "word_vectors", func(c *config.Config, on bool) { c.Discovery.WordNet, c.Discovery.WordVectors = false, on })
}

// testExpansionSetting checks that "automobiles" finds the fleet's cars
// with the expansion set turns on, and nothing with it off.
func testExpansionSetting(t *testing.T, name string, set func(c *config.Config, on bool)) {
	t.Helper()
	for _, on := range []bool{true, false} {
		s := newServer(t, func(c *config.Config) { set(c, on) })
		up := upstreamJSON(t, `{}`)
		doc := strings.ReplaceAll(crmOpenAPI(up.URL), `"/customers/{id}/notes"`, `"/fleet/cars":{"get":{"operationId":"listCars","summary":"List the cars of the fleet","responses":{"200":{"description":"ok"}}}},"/customers/{id}/notes"`)
		s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": doc}).want(t, http.StatusCreated)
		_, key := s.account(map[string]any{"apis": []string{"crm"}}, nil)
		k := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": "automobiles", "top_k": 1}).want(t, http.StatusOK)
		res, _ := k.get("results").([]any)
		found := len(res) == 1 && res[0].(map[string]any)["id"] == "crm.listCars"
		if found != on {
			t.Fatalf("%s %v: %s", name, on, k.raw)
		}
	}
}

// discovery.abbreviations and discovery.synonyms reach the catalog's
// ranking: "a po" finds the purchase orders, "receipts" the statements
// (WordNet and the word vectors off, so only the operator's words bridge).
func TestDiscoveryVocabularySetting(t *testing.T) {
	for _, on := range []bool{true, false} {
		s := newServer(t, func(c *config.Config) {
			c.Discovery.WordNet, c.Discovery.WordVectors = false, false
			if on {
				c.Discovery.Abbreviations = map[string]string{"po": "purchase order"}
				c.Discovery.Synonyms = []string{"receipt statement"}
			}
		})
		up := upstreamJSON(t, `{}`)
		doc := strings.ReplaceAll(crmOpenAPI(up.URL), `"/customers/{id}/notes"`, `"/orders":{"post":{"operationId":"createPurchaseOrder","summary":"Create a purchase order","responses":{"200":{"description":"ok"}}}},"/statements":{"get":{"operationId":"listStatements","summary":"List the statements of an account","responses":{"200":{"description":"ok"}}}},"/customers/{id}/notes"`)
		s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": doc}).want(t, http.StatusCreated)
		_, key := s.account(map[string]any{"apis": []string{"crm"}}, nil)
		for query, id := range map[string]string{"raise a po": "crm.createPurchaseOrder", "receipts": "crm.listStatements"} {
			k := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": query, "top_k": 1}).want(t, http.StatusOK)
			res, _ := k.get("results").([]any)
			found := len(res) == 1 && res[0].(map[string]any)["id"] == id
			if found != on {
				t.Fatalf("vocabulary %v, %q: %s", on, query, k.raw)
			}
		}
	}
}

// GET /api/v1/admin/discovery/explain: for the admin, the terms a query
// searches for; an account is refused (the expansions name words of every
// entry); no query is a 400 naming the parameter.
func TestDiscoveryExplain(t *testing.T) {
	s := newServer(t)
	up := upstreamJSON(t, `{}`)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": crmOpenAPI(up.URL)}).want(t, http.StatusCreated)
	r := s.call("GET", "/api/v1/admin/discovery/explain?query=invoices+of+jane%40acme.com", s.admin, nil).want(t, http.StatusOK)
	terms, _ := r.get("terms").([]any)
	found := map[string]string{}
	for _, x := range terms {
		m := x.(map[string]any)
		found[m["term"].(string)] = m["via"].(string)
	}
	if found["invoic"] != "query" || found["email"] != "value" || found["jane"] != "" {
		t.Fatalf("%s", r.raw)
	}
	_, key := s.account(map[string]any{"apis": []string{"crm"}}, nil)
	s.call("GET", "/api/v1/admin/discovery/explain?query=invoices", key, nil).want(t, http.StatusForbidden)
	if r := s.call("GET", "/api/v1/admin/discovery/explain", s.admin, nil).want(t, http.StatusBadRequest); !strings.Contains(string(r.raw), "params.query") {
		t.Fatalf("%s", r.raw)
	}
}

// POST /api/v1/discovery/feedback: an account says which entry answered
// its query, and from then on the query's words find that entry, for every
// account that may see it. Each account counts once per word; what an
// account may not see it cannot teach; a token or an email address in the
// query is not learnt, logged or listed; the words survive a restart, and
// the admin lists and forgets them.
func TestDiscoveryLearnsFromFeedback(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	admin := s.admin
	up := upstreamJSON(t, `{}`)
	s.call("POST", "/api/v1/admin/apis", admin, map[string]any{"name": "crm", "document": crmOpenAPI(up.URL)}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"apis": []string{"crm"}}, nil)
	_, key2 := s.account(map[string]any{"apis": []string{"crm"}}, nil)
	_, plain := s.account(map[string]any{"operations": []string{"ApiCall"}}, nil)
	const secret = "sk_live_Zx8Qw3Lk9Vb2Nm4Rt7Yp"
	search := func(key, query string) []string {
		t.Helper()
		r := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": query, "top_k": 1}).want(t, http.StatusOK)
		var out []string
		for _, x := range r.get("results").([]any) {
			out = append(out, x.(map[string]any)["id"].(string))
		}
		return out
	}
	// "giraffe" is an English word no entry holds or comes near.
	if got := search(key2, "giraffe"); len(got) != 0 {
		t.Fatalf("before feedback: %v", got)
	}
	fb := map[string]any{"query": "giraffe report with " + secret + " for ann@example.com", "id": "crm.listInvoices"}
	r := s.call("POST", "/api/v1/discovery/feedback", key, fb).want(t, http.StatusOK)
	if r.str("kind") != "operation" || r.str("id") != "crm.listInvoices" || r.get("new") != float64(2) ||
		fmt.Sprint(r.get("words")) != "[giraff report]" {
		t.Fatalf("feedback: %s", r.raw)
	}
	if got := search(key2, "giraffe"); len(got) != 1 || got[0] != "crm.listInvoices" {
		t.Fatalf("another account after feedback: %v", got)
	}
	if got := search(plain, "giraffe"); len(got) != 0 {
		t.Fatalf("an account without the grant: %v", got)
	}
	// The same account again teaches nothing new; a second account adds
	// its count.
	if r := s.call("POST", "/api/v1/discovery/feedback", key, fb).want(t, http.StatusOK); r.get("new") != float64(0) {
		t.Fatalf("again: %s", r.raw)
	}
	s.call("POST", "/api/v1/discovery/feedback", key2, map[string]any{"query": "giraffe", "id": "crm.listInvoices", "kind": "operation"}).want(t, http.StatusOK)
	u := s.call("GET", "/api/v1/admin/discovery/usage", admin, nil).want(t, http.StatusOK)
	if got := fmt.Sprint(u.get("entries")); got != "[map[id:crm.listInvoices kind:operation words:map[giraff:2 report:1]]]" {
		t.Fatalf("usage: %s", u.raw)
	}
	// Nothing of the token or the address, anywhere.
	for where, text := range map[string]string{"usage": string(u.raw), "logs": s.logs.String()} {
		for _, bad := range []string{secret, "Zx8Qw3", "ann@", "example"} {
			if strings.Contains(text, bad) {
				t.Fatalf("%s holds %q", where, bad)
			}
		}
	}
	// What the account may not see, it cannot teach (and is not told it exists).
	s.call("POST", "/api/v1/discovery/feedback", plain, fb).want(t, http.StatusNotFound)
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"id": "crm.listInvoices"}, "params.query"},
		{map[string]any{"query": "x"}, "params.id"},
		{map[string]any{"query": "x", "id": "crm.nope"}, "params.id"},
		{map[string]any{"query": "x", "id": "crm.listInvoices", "kind": "widget"}, "params.kind"},
		{map[string]any{"query": "x", "id": "crm.listInvoices", "kind": "tool"}, "params.id"},
	} {
		r := s.call("POST", "/api/v1/discovery/feedback", key, c.body)
		if r.status != http.StatusBadRequest && r.status != http.StatusNotFound || !strings.Contains(string(r.raw), c.want) {
			t.Fatalf("%v: %d %s", c.body, r.status, r.raw)
		}
	}
	// Listing and forgetting are for the admin.
	s.call("GET", "/api/v1/admin/discovery/usage", key, nil).want(t, http.StatusForbidden)
	s.call("DELETE", "/api/v1/admin/discovery/usage?kind=operation&id=crm.listInvoices", key, nil).want(t, http.StatusForbidden)
	s.call("DELETE", "/api/v1/admin/discovery/usage?id=crm.listInvoices", admin, nil).want(t, http.StatusBadRequest)

	// A restart keeps what was learnt.
	s.close()
	s = startServer(t, dir)
	if got := search(key2, "giraffe"); len(got) != 1 || got[0] != "crm.listInvoices" {
		t.Fatalf("after a restart: %v", got)
	}
	if u := s.call("GET", "/api/v1/admin/discovery/usage?kind=operation&id=crm.listInvoices", admin, nil).want(t, http.StatusOK); !strings.Contains(string(u.raw), `"giraff":2`) {
		t.Fatalf("usage of one entry after a restart: %s", u.raw)
	}
	if d := s.call("DELETE", "/api/v1/admin/discovery/usage?kind=operation&id=crm.listInvoices", admin, nil).want(t, http.StatusOK); d.get("deleted") != float64(3) {
		t.Fatalf("forget: %s", d.raw)
	}
	if got := search(key2, "giraffe"); len(got) != 0 {
		t.Fatalf("after forgetting: %v", got)
	}
	if u := s.call("GET", "/api/v1/admin/discovery/usage", admin, nil).want(t, http.StatusOK); fmt.Sprint(u.get("entries")) != "[]" {
		t.Fatalf("usage after forgetting: %s", u.raw)
	}
}

// discovery.learning.enabled: false serves no feedback route, and the
// catalog learns nothing.
func TestDiscoveryLearningOff(t *testing.T) {
	s := newServer(t, func(c *config.Config) { c.Discovery.Learning.Enabled = false })
	up := upstreamJSON(t, `{}`)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "crm", "document": crmOpenAPI(up.URL)}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"apis": []string{"crm"}}, nil)
	r := s.call("POST", "/api/v1/discovery/feedback", key, map[string]any{"query": "giraffe", "id": "crm.listInvoices"})
	if r.status == http.StatusOK {
		t.Fatalf("feedback with learning off: %s", r.raw)
	}
	// The methods are not served: 404, unknown method.
	r.want(t, http.StatusNotFound)
	if u := s.call("GET", "/api/v1/admin/discovery/usage", s.admin, nil).want(t, r.status); !strings.Contains(string(u.raw), "unknown method") {
		t.Fatalf("usage with learning off: %s", u.raw)
	}
	k := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": "giraffe", "top_k": 1}).want(t, http.StatusOK)
	if res, _ := k.get("results").([]any); len(res) != 0 {
		t.Fatalf("learnt with learning off: %s", k.raw)
	}
}
