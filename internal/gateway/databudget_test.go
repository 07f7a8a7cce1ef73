package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAccountDataBudget: an account's limits.max_data_bytes bounds its
// executions, synchronous and queued; another account keeps the server's
// default; a budget above the documented maximum (1 GiB) is refused.
func TestAccountDataBudget(t *testing.T) {
	s := newServer(t)
	var b strings.Builder
	b.WriteByte('[')
	for i := range 3000 { // about 130 KB of JSON, over 512 KiB decoded
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"user-%d","status":"active","email":"user-%d@example.com"}`, i, i)
	}
	b.WriteByte(']')
	up := upstreamJSON(t, b.String())
	perms := map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": []string{}}
	_, small := s.account(perms, map[string]any{"max_data_bytes": 512 << 10})
	_, plain := s.anyAccount()

	if r := s.call("POST", "/api/v1/workflows/execute", plain, map[string]any{"workflow": fetchDoc(up.URL+"/users", "")}).want(t, 200); r.str("status") != "success" {
		t.Fatalf("default budget: %s", r.raw)
	}
	overBudget := func(r response) {
		t.Helper()
		errs, _ := r.get("errors").([]any)
		if r.str("status") != "failed" || len(errs) != 1 {
			t.Fatalf("small budget: %s", r.raw)
		}
		e := errs[0].(map[string]any)
		d, _ := e["details"].(map[string]any)
		if e["type"] != "DataError" || e["operationId"] != "fetch" || d["dataBudgetBytes"] != float64(512<<10) ||
			d["reachedBytes"].(float64) <= float64(512<<10) {
			t.Fatalf("small budget error: %v", e)
		}
	}
	overBudget(s.call("POST", "/api/v1/workflows/execute", small, map[string]any{"workflow": fetchDoc(up.URL+"/users", "")}).want(t, 200))

	r := s.call("POST", "/api/v1/workflows/execute?async=true", small, map[string]any{"workflow": fetchDoc(up.URL+"/users", "")}).want(t, 202)
	var g response
	waitFor(t, 10*time.Second, "the async execution", func() bool {
		g = s.call("GET", "/api/v1/executions/"+r.str("execution_id"), small, nil).want(t, 200)
		return g.str("status") == "failed" || g.str("status") == "success"
	})
	overBudget(g)

	s.call("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"name": "too big", "permissions": perms,
		"limits": map[string]any{"max_data_bytes": 1<<30 + 1}}).want(t, http.StatusBadRequest)
}
