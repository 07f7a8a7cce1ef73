package gateway_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Through the admin API a credential is bound to hosts, the binding shows in
// its metadata, and a workflow sending it elsewhere is refused at validation
// (a PermissionError naming the credential and the host, not the value),
// before anything is sent (execute answers 403); at the bound host it runs.
func TestCredentialHostBindingThroughTheAPI(t *testing.T) {
	up := upstreamJSON(t, `{"ok":true}`)
	u, _ := url.Parse(up.URL)
	s := newServer(t)
	const secret = "bound-secret-value-7731"
	put := func(hosts ...string) response {
		return s.call("PUT", "/api/v1/admin/credentials/api", s.admin, map[string]any{"type": "api-key", "value": secret, "hosts": hosts})
	}
	r := put("API.example.com", "api.example.com").want(t, http.StatusOK)
	if hosts, _ := r.get("hosts").([]any); len(hosts) != 1 || hosts[0] != "api.example.com" {
		t.Fatalf("put answered %s", r.raw)
	}
	if g := s.call("GET", "/api/v1/admin/credentials/api", s.admin, nil); !strings.Contains(string(g.raw), `"hosts":["api.example.com"]`) {
		t.Fatalf("get: %s", g.raw)
	}
	if l := s.call("GET", "/api/v1/admin/credentials", s.admin, nil); !strings.Contains(string(l.raw), `"hosts":["api.example.com"]`) {
		t.Fatalf("list: %s", l.raw)
	}
	if bad := put("*"); bad.status != http.StatusBadRequest || !strings.Contains(string(bad.raw), "hosts[0]") {
		t.Fatalf("bound to *: %d %s", bad.status, bad.raw)
	}

	_, key := s.anyAccount("api")
	doc := jsonl(`{"type":"operationUpdate","operationId":"call","operation":{"ApiCall":{"method":"GET","url":"`+up.URL+`/x","headers":{"X-Api-Key":{"credentialRef":{"id":"api"}}},"cache":false,"outputPath":"/workflow/r"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["call"]}`)
	for path, status := range map[string]int{"/api/v1/workflows/validate": http.StatusOK, "/api/v1/workflows/execute": http.StatusForbidden} {
		r := s.call("POST", path, key, map[string]any{"workflow": doc})
		raw := string(r.raw)
		if r.status != status || !strings.Contains(raw, "PermissionError") || !strings.Contains(raw, `\"api\"`) ||
			!strings.Contains(raw, u.Host) || strings.Contains(raw, secret) {
			t.Fatalf("%s with a credential bound elsewhere: %d %s", path, r.status, raw)
		}
	}
	put(u.Host).want(t, http.StatusOK)
	if r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}); r.status != http.StatusOK || r.str("status") != "success" {
		t.Fatalf("at the bound host: %d %s", r.status, r.raw)
	}
}
