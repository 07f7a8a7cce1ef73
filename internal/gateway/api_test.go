package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHealthReadyAndUnknownRoute(t *testing.T) {
	s := newServer(t)
	r := s.call("GET", "/health", "", nil).want(t, 200)
	if r.str("status") != "healthy" {
		t.Fatalf("health: %s", r.raw)
	}
	s.call("GET", "/ready", "", nil).want(t, 200)
	r = s.call("GET", "/api/v1/nothing", "", nil).want(t, 404)
	if r.str("error.type") == "" {
		t.Fatalf("unknown route answers the spec's error object: %s", r.raw)
	}
}

func TestAuthentication(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	for name, req := range map[string]func() *http.Request{
		"no key": func() *http.Request { r, _ := http.NewRequest("GET", s.http.URL+"/api/v1/capabilities", nil); return r },
		"wrong key": func() *http.Request {
			r, _ := http.NewRequest("GET", s.http.URL+"/api/v1/capabilities", nil)
			r.Header.Set("Authorization", "Bearer slk_aaaaaaaaaaaaa_"+strings.Repeat("a", 59))
			return r
		},
		"garbage key": func() *http.Request {
			r, _ := http.NewRequest("GET", s.http.URL+"/api/v1/capabilities", nil)
			r.Header.Set("X-API-Key", "hello")
			return r
		},
		"two different keys": func() *http.Request {
			r, _ := http.NewRequest("GET", s.http.URL+"/api/v1/capabilities", nil)
			r.Header.Set("Authorization", "Bearer "+key)
			r.Header.Set("X-API-Key", s.admin)
			return r
		},
	} {
		r := s.do(req())
		if r.status != 401 || r.str("error.type") != "PermissionError" {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
		if strings.Contains(string(r.raw), key) {
			t.Errorf("%s: the answer quotes the key", name)
		}
	}
	// X-API-Key works as well as Bearer.
	req, _ := http.NewRequest("GET", s.http.URL+"/api/v1/capabilities", nil)
	req.Header.Set("X-API-Key", key)
	s.do(req).want(t, 200)
	// A malformed body from a caller without a key learns nothing about it.
	s.call("POST", "/api/v1/workflows/validate", "", "{not json").want(t, 401)
}

func TestAdminAccountsAndKeys(t *testing.T) {
	s := newServer(t)
	id, key := s.account(map[string]any{"operations": []string{"FilterData"}}, map[string]any{"requests_per_minute": 100})
	if !strings.HasPrefix(key, "slk_") {
		t.Fatalf("key %q", key)
	}
	// An account is not an admin.
	s.call("GET", "/api/v1/admin/accounts", key, nil).want(t, 403)
	r := s.call("GET", "/api/v1/admin/accounts/"+id, s.admin, nil).want(t, 200)
	if r.get("limits.requests_per_minute") != float64(100) || r.get("limits.requests_per_hour") != float64(1000) {
		t.Fatalf("limits are not the account's with the defaults filled in: %s", r.raw)
	}
	list := s.call("GET", "/api/v1/admin/accounts?limit=10", s.admin, nil).want(t, 200)
	if n := len(list.get("accounts").([]any)); n != 2 { // admin and this one
		t.Fatalf("%d accounts listed: %s", n, list.raw)
	}
	// Update: permissions take effect at once.
	s.call("POST", "/api/v1/workflows/validate", key, map[string]any{"workflow": waitDoc(0)}).want(t, 200)
	s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"permissions": map[string]any{"operations": []string{"Wait"}}}).want(t, 200)
	// Bad input names the field.
	r = s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"permissions": map[string]any{"hosts": []string{"a b"}}}).want(t, 400)
	if !strings.Contains(r.str("error.message"), "permissions.hosts[0]") {
		t.Fatalf("bad grant: %s", r.raw)
	}
	r = s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"permisions": map[string]any{}}).want(t, 400)
	if !strings.Contains(r.str("error.message"), "permisions") || len(r.get("error.suggestions").([]any)) == 0 {
		t.Fatalf("misspelt field: %s", r.raw)
	}
	s.call("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"permissions": map[string]any{}}).want(t, 400) // no name

	// A second key; revoking the first stops it at once.
	k2 := s.call("POST", "/api/v1/admin/accounts/"+id+"/keys", s.admin, map[string]any{}).want(t, 201)
	keys := s.call("GET", "/api/v1/admin/accounts/"+id+"/keys", s.admin, nil).want(t, 200)
	ks := keys.get("keys").([]any)
	if len(ks) != 2 || strings.Contains(string(keys.raw), key) {
		t.Fatalf("keys: %s", keys.raw)
	}
	first := ks[0].(map[string]any)["key_id"].(string)
	s.call("DELETE", "/api/v1/admin/accounts/"+id+"/keys/"+first, s.admin, nil).want(t, 200)
	s.call("GET", "/api/v1/capabilities", key, nil).want(t, 401)
	s.call("GET", "/api/v1/capabilities", k2.str("api_key"), nil).want(t, 200)

	// Disabling the account stops every key.
	s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"disabled": true}).want(t, 200)
	s.call("GET", "/api/v1/capabilities", k2.str("api_key"), nil).want(t, 401)
	s.call("GET", "/api/v1/admin/accounts/acct-nobody", s.admin, nil).want(t, 404)
	s.call("PATCH", "/api/v1/admin/accounts/admin", s.admin, map[string]any{"disabled": true}).want(t, 409)
}

func TestCredentialsNeverShowTheirValue(t *testing.T) {
	s := newServer(t)
	const value = "sk-live-credential-value-8472"
	r := s.call("PUT", "/api/v1/admin/credentials/weather", s.admin, map[string]any{"type": "bearer-token", "value": value, "description": "weather API"}).want(t, 200)
	list := s.call("GET", "/api/v1/admin/credentials", s.admin, nil).want(t, 200)
	one := s.call("GET", "/api/v1/admin/credentials/weather", s.admin, nil).want(t, 200)
	for _, x := range []response{r, list, one} {
		if strings.Contains(string(x.raw), value) {
			t.Fatalf("a credential answer holds its value: %s", x.raw)
		}
	}
	if one.str("type") != "bearer-token" || len(list.get("credentials").([]any)) != 1 {
		t.Fatalf("metadata: %s %s", one.raw, list.raw)
	}
	s.call("PUT", "/api/v1/admin/credentials/x", s.admin, map[string]any{"type": "api-key"}).want(t, 400) // no value
	s.call("DELETE", "/api/v1/admin/credentials/weather", s.admin, nil).want(t, 200)
	s.call("GET", "/api/v1/admin/credentials/weather", s.admin, nil).want(t, 404)
}

func TestCapabilities(t *testing.T) {
	s := newServer(t)
	s.call("PUT", "/api/v1/admin/credentials/c1", s.admin, map[string]any{"type": "api-key", "value": "v-123456"}).want(t, 200)
	s.call("PUT", "/api/v1/admin/credentials/c2", s.admin, map[string]any{"type": "api-key", "value": "v-654321"}).want(t, 200)
	id, key := s.account(map[string]any{"operations": []string{"ApiCall", "FilterData"}, "hosts": []string{"api.example.com"}, "credentials": []string{"c2"}}, nil)
	r := s.call("GET", "/api/v1/capabilities", key, nil).want(t, 200)
	if r.str("agent_id") != id || fmt.Sprint(r.get("capabilities.supportedOperations")) != "[ApiCall FilterData]" ||
		fmt.Sprint(r.get("capabilities.availableCredentials")) != "[c2]" || r.get("capabilities.securityConstraints.maxOperations") != float64(20) {
		t.Fatalf("capabilities: %s", r.raw)
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if r.header.Get(h) == "" {
			t.Errorf("authenticated answer without %s", h)
		}
	}
}

func TestBadRequests(t *testing.T) {
	s := newServer(t, func(c *configT) { c.MaxBodyBytes = 64 << 10; c.Limits.MaxDocumentBytes = 32 << 10 })
	_, key := s.anyAccount()
	r := s.call("POST", "/api/v1/workflows/validate", key, "{\n  \"workflow\": \"x\",\n  oops\n}").want(t, 400)
	if !strings.Contains(r.str("error.message"), "line 3, column 3") {
		t.Fatalf("malformed JSON is not located: %s", r.raw)
	}
	r = s.call("POST", "/api/v1/workflows/validate", key, map[string]any{"workflow": "x", "worklfow": 1}).want(t, 400)
	if !strings.Contains(r.str("error.message"), "worklfow") {
		t.Fatalf("unknown parameter: %s", r.raw)
	}
	s.call("POST", "/api/v1/workflows/validate", key, `[1,2]`).want(t, 400)
	s.call("POST", "/api/v1/workflows/validate", key, map[string]any{}).want(t, 400)
	big := map[string]any{"workflow": strings.Repeat("x", 70<<10)}
	r = s.call("POST", "/api/v1/workflows/execute", key, big).want(t, 413)
	if r.str("error.type") != "ValidationError" {
		t.Fatalf("413 body: %s", r.raw)
	}
	s.call("GET", "/api/v1/executions?limit=0", key, nil).want(t, 400)
	s.call("GET", "/api/v1/executions?status=done", key, nil).want(t, 400)
}

func TestMetrics(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitDoc(0)}).want(t, 200)
	m := s.call("GET", "/metrics", "", nil).want(t, 200)
	for _, series := range []string{"sluice_requests_total", "sluice_request_duration_seconds", "sluice_operation_duration_seconds", "sluice_executions_total", "sluice_http_responses_total"} {
		if !strings.Contains(string(m.raw), series) {
			t.Errorf("metrics lack %s", series)
		}
	}
	off := newServer(t, func(c *configT) { c.Metrics.Enabled = false })
	off.call("GET", "/metrics", "", nil).want(t, 404)
}

func TestRestartKeepsAccountsAndCredentialsAndLocksTheDirectory(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	id, key := s.anyAccount()
	s.call("PUT", "/api/v1/admin/credentials/k", s.admin, map[string]any{"type": "api-key", "value": "value-123456"}).want(t, 200)

	// A second server on the same directory is refused, naming the holder.
	cfg := configDefaults(dir)
	_, err := openApp(cfg)
	if err == nil || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second open: %v", err)
	}
	admin := s.admin
	s.close()

	s2 := startServer(t, dir)
	if s2.admin != "" {
		t.Fatal("a restart issued a second admin key")
	}
	s2.call("GET", "/api/v1/capabilities", key, nil).want(t, 200)
	s2.call("GET", "/api/v1/admin/accounts/"+id, admin, nil).want(t, 200)
	s2.call("GET", "/api/v1/admin/credentials/k", admin, nil).want(t, 200)
	_ = time.Second
}
