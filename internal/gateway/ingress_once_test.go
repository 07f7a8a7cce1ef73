package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/gateway"
)

// Each ingress checks a key once per request, and a session once per
// connection (its handshake): its calls carry what the handshake found. A
// session call used to check the key again.
func TestEachIngressAuthenticatesOnce(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	checks := gateway.CountAuthentications(s.app.Server, time.Hour)
	once := func(what string, do func()) {
		t.Helper()
		before := checks.Load()
		do()
		if n := checks.Load() - before; n != 1 {
			t.Errorf("%s: the key was checked %d times, want once", what, n)
		}
	}
	once("REST GET", func() { s.call("GET", "/api/v1/capabilities", key, nil).want(t, http.StatusOK) })
	once("REST POST (authenticated before its body is read)", func() {
		s.call("POST", "/api/v1/workflows/validate", key, map[string]any{"workflow": "x"}).want(t, http.StatusOK)
	})
	once("REST with a wrong key", func() { s.call("GET", "/api/v1/capabilities", "slk_not_a_key", nil).want(t, http.StatusUnauthorized) })
	once("E2A", func() {
		s.call("POST", "/api/v1/e2a", key, map[string]any{"method": "account.capabilities", "request_id": "r1"}).want(t, http.StatusOK)
	})
	once("SSE", func() { s.call("GET", "/api/v1/executions/nope/events", key, nil).want(t, http.StatusNotFound) })
	once("session: a handshake and five calls", func() {
		r := openRaw(t, s)
		if m := r.handshake(key); m["ok"] != true {
			t.Fatalf("handshake: %v", m)
		}
		for range 3 {
			r.send("tool/list/req", map[string]any{"query": "filter"})
			if m := r.recv(); m["type"] != "tool/list/resp" {
				t.Fatalf("list: %v", m)
			}
		}
		for range 2 {
			r.send("tool/call/req", map[string]any{"tool_name": "workflow.validate", "arguments": map[string]any{"workflow": "x"}})
			if m := r.recv(); m["type"] != "tool/call/resp" {
				t.Fatalf("call: %v", m)
			}
		}
	})
	once("session: a refused handshake", func() {
		r := openRaw(t, s)
		if m := r.handshake("slk_not_a_key"); m["ok"] != false {
			t.Fatalf("handshake: %v", m)
		}
	})
}

// A key revoked mid-session fails the session's calls from the next check
// of its key on, as unauthorized, and they stay refused.
func TestSessionCallsFailOnceItsKeyIsRevoked(t *testing.T) {
	s := newServer(t)
	id, key := s.anyAccount()
	// Every call is past the recheck: each checks the key.
	gateway.CountAuthentications(s.app.Server, time.Nanosecond)
	r := openRaw(t, s)
	if m := r.handshake(key); m["ok"] != true {
		t.Fatalf("handshake: %v", m)
	}
	list := func() map[string]any {
		r.send("tool/list/req", map[string]any{})
		return r.recv()
	}
	if m := list(); m["type"] != "tool/list/resp" {
		t.Fatalf("before the revocation: %v", m)
	}
	keys := s.call("GET", "/api/v1/admin/accounts/"+id+"/keys", s.admin, nil).want(t, http.StatusOK)
	keyID := keys.get("keys").([]any)[0].(map[string]any)["key_id"].(string)
	s.call("DELETE", "/api/v1/admin/accounts/"+id+"/keys/"+keyID, s.admin, nil).want(t, http.StatusOK)
	for range 2 {
		m := list()
		if m["type"] != "error" || m["code"] != "unauthorized" {
			t.Fatalf("after the revocation: %v", m)
		}
		if strings.Contains(m["message"].(string), key[len(key)-8:]) {
			t.Fatalf("the refusal quotes the key: %v", m)
		}
	}
}
