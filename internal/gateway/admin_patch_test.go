package gateway_test

import (
	"fmt"
	"strings"
	"testing"
)

// PATCH /api/v1/admin/accounts/{id} merges permissions and limits as JSON
// merge patch (RFC 7396) says: before, a patch naming one grant replaced the
// whole permission set, and one naming one limit reset the others.
func TestAccountPatchIsMergePatch(t *testing.T) {
	s := newServer(t)
	id, _ := s.account(map[string]any{"operations": []string{"ApiCall", "FilterData"}, "hosts": []string{"api.example.com"}},
		map[string]any{"requests_per_minute": 100, "max_operations": 20})
	path := "/api/v1/admin/accounts/" + id
	str := func(v any) string { return fmt.Sprint(v) }

	r := s.call("PATCH", path, s.admin, map[string]any{"permissions": map[string]any{"knowledge_bases": []string{"kb1"}}}).want(t, 200)
	if str(r.get("permissions.operations")) != "[ApiCall FilterData]" || str(r.get("permissions.hosts")) != "[api.example.com]" ||
		str(r.get("permissions.knowledge_bases")) != "[kb1]" {
		t.Fatalf("one grant patched: %s", r.raw)
	}
	r = s.call("PATCH", path, s.admin, map[string]any{"limits": map[string]any{"max_operations": 30}}).want(t, 200)
	if r.get("limits.max_operations") != float64(30) || r.get("limits.requests_per_minute") != float64(100) {
		t.Fatalf("one limit patched: %s", r.raw)
	}
	// null removes a member: no grant, the server's default limit.
	r = s.call("PATCH", path, s.admin, map[string]any{"permissions": map[string]any{"hosts": nil}, "limits": map[string]any{"requests_per_minute": nil}}).want(t, 200)
	if str(r.get("permissions.hosts")) != "[]" || str(r.get("permissions.operations")) != "[ApiCall FilterData]" ||
		r.get("limits.requests_per_minute") == float64(100) || r.get("limits.max_operations") != float64(30) {
		t.Fatalf("members removed: %s", r.raw)
	}
	// A misspelt member is refused, not dropped; a patch is an object or null.
	r = s.call("PATCH", path, s.admin, map[string]any{"permissions": map[string]any{"knowledge_base": []string{"kb2"}}}).want(t, 400)
	if !strings.Contains(r.str("error.message"), "knowledge_base") {
		t.Fatalf("misspelt grant: %s", r.raw)
	}
	r = s.call("PATCH", path, s.admin, map[string]any{"limits": []int{1}}).want(t, 400)
	if !strings.Contains(r.str("error.message"), "limits") {
		t.Fatalf("limits as a list: %s", r.raw)
	}
	r = s.call("GET", path, s.admin, nil).want(t, 200)
	if str(r.get("permissions.knowledge_bases")) != "[kb1]" {
		t.Fatalf("a refused patch changed the account: %s", r.raw)
	}
	// null for the whole member removes every grant (the level returns to basic).
	r = s.call("PATCH", path, s.admin, map[string]any{"permissions": nil}).want(t, 200)
	if str(r.get("permissions.operations")) != "[]" || r.str("permissions.capability_level") != "basic" {
		t.Fatalf("permissions: null: %s", r.raw)
	}
}

// An account's max_loop_iterations above the server's (1000 by default,
// which the engine applies to every loop) is refused, naming the limit and
// the maximum: it was accepted and silently ignored.
func TestAccountLoopLimitAboveServerMaximumRefused(t *testing.T) {
	s := newServer(t)
	r := s.call("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"name": "loops",
		"limits": map[string]any{"max_loop_iterations": 5000}}).want(t, 400)
	if msg := r.str("error.message"); !strings.Contains(msg, "max_loop_iterations") || !strings.Contains(msg, "1000") {
		t.Fatalf("create: %s", r.raw)
	}
	id, _ := s.account(map[string]any{"operations": []string{"Loop"}}, map[string]any{"max_loop_iterations": 500})
	r = s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"limits": map[string]any{"max_loop_iterations": 1001}}).want(t, 400)
	if msg := r.str("error.message"); !strings.Contains(msg, "max_loop_iterations") || !strings.Contains(msg, "1000") {
		t.Fatalf("patch: %s", r.raw)
	}
	r = s.call("PATCH", "/api/v1/admin/accounts/"+id, s.admin, map[string]any{"limits": map[string]any{"max_loop_iterations": 1000}}).want(t, 200)
	if r.get("limits.max_loop_iterations") != float64(1000) {
		t.Fatalf("at the maximum: %s", r.raw)
	}
}
