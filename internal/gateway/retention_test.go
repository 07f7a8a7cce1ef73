package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// TestAdminRetention: the policy's admin methods are the admin's only; an
// update is checked, kept across a restart and undone by null; a prune now
// deletes a run that finished long ago and keeps a recent one; the storage
// stats count them.
func TestAdminRetention(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	acct, key := s.account(map[string]any{"operations": []string{"FilterData"}}, nil)
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/admin/retention"}, {"PATCH", "/api/v1/admin/retention"},
		{"POST", "/api/v1/admin/retention/prune"}, {"GET", "/api/v1/admin/storage"},
	} {
		s.call(c.method, c.path, key, map[string]any{}).want(t, http.StatusForbidden)
		s.call(c.method, c.path, "", map[string]any{}).want(t, http.StatusUnauthorized)
	}

	// An account's own age: -1 (for ever) to 3650 days.
	s.call("PATCH", "/api/v1/admin/accounts/"+acct, s.admin, map[string]any{"limits": map[string]any{"retention_days": 90}}).want(t, 200)
	r := s.call("PATCH", "/api/v1/admin/accounts/"+acct, s.admin, map[string]any{"limits": map[string]any{"retention_days": -2}}).want(t, http.StatusBadRequest)
	if !strings.Contains(string(r.raw), "limits.retention_days") {
		t.Fatalf("a bad retention_days: %s", r.raw)
	}
	s.call("PATCH", "/api/v1/admin/accounts/"+acct, s.admin, map[string]any{"limits": map[string]any{"retention_days": nil}}).want(t, 200)

	r = s.call("GET", "/api/v1/admin/retention", s.admin, nil).want(t, 200)
	if r.str("policy.runs") != "30d" || r.str("policy.audit") != "30d" || r.str("configured.runs") != "30d" {
		t.Fatalf("the default policy: %s", r.raw)
	}
	r = s.call("PATCH", "/api/v1/admin/retention", s.admin, map[string]any{"runs": "7d"}).want(t, 200)
	if r.str("policy.runs") != "7d" || r.str("policy.audit") != "30d" || r.str("configured.runs") != "30d" {
		t.Fatalf("after the update: %s", r.raw)
	}
	for body, want := range map[string]string{
		`{"runs":"5m"}`: "params.runs", `{"runs":5}`: "params.runs", `{"audit":"forever"}`: "params.audit",
		`{"keep":"1d"}`: "keep",
	} {
		r := s.call("PATCH", "/api/v1/admin/retention", s.admin, body).want(t, http.StatusBadRequest)
		if !strings.Contains(string(r.raw), want) {
			t.Errorf("%s: %s, want it to name %s", body, r.raw, want)
		}
	}

	// A run of the account that finished 40 days ago, written with the
	// store's clock set back, and one that finished now.
	s.close()
	old, err := sqlite.Open(context.Background(), sqlite.Options{Dir: dir, Clock: clock.NewFake(time.Now().Add(-40 * 24 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	finishRun(t, old, acct, "exec-old")
	old.Close()
	recent, err := sqlite.Open(context.Background(), sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	finishRun(t, recent, acct, "exec-recent")
	recent.Close()

	admin := s.admin // printed once, on first start
	s = startServer(t, dir)
	s.admin = admin
	r = s.call("GET", "/api/v1/admin/retention", s.admin, nil).want(t, 200)
	if r.str("policy.runs") != "7d" || r.get("set_by_admin").([]any)[0] != "runs" {
		t.Fatalf("after a restart: %s", r.raw)
	}
	r = s.call("GET", "/api/v1/admin/storage", s.admin, nil).want(t, 200)
	if r.str("backend") != "sqlite" || r.get("bytes_per_execution").(float64) <= 0 || r.get("tables").([]any)[0].(map[string]any)["rows"].(float64) != 2 {
		t.Fatalf("storage: %s", r.raw)
	}
	r = s.call("POST", "/api/v1/admin/retention/prune", s.admin, nil).want(t, 200)
	if r.get("runs").(float64) != 1 || r.get("events").(float64) != 1 || r.get("checkpoints").(float64) != 1 {
		t.Fatalf("prune: %s", r.raw)
	}
	s.call("GET", "/api/v1/executions/exec-old", key, nil).want(t, http.StatusNotFound)
	if m := s.call("GET", "/metrics", "", nil).want(t, 200); !strings.Contains(string(m.raw), `sluice_retention_deleted_total{kind="runs"} 1`) {
		t.Fatalf("the metrics do not count the pruned run")
	}
	s.call("GET", "/api/v1/executions/exec-recent", key, nil).want(t, 200)
	r = s.call("GET", "/api/v1/admin/retention", s.admin, nil).want(t, 200)
	if r.get("last_pass.runs").(float64) != 1 {
		t.Fatalf("the last pass: %s", r.raw)
	}

	r = s.call("PATCH", "/api/v1/admin/retention", s.admin, `{"runs":null}`).want(t, 200)
	if r.str("policy.runs") != "30d" || len(r.get("set_by_admin").([]any)) != 0 {
		t.Fatalf("after null: %s", r.raw)
	}
}

// finishRun stores a finished run of account with a frame and a checkpoint.
func finishRun(t *testing.T, db *sqlite.DB, account, id string) {
	t.Helper()
	ctx := context.Background()
	e := store.Execution{ID: id, AccountID: account, Digest: "d", Document: []byte(`{}`), Status: store.StatusRunning, BudgetMs: 1}
	if _, _, err := db.CreateExecution(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendEvents(ctx, id, []byte(`{"type":"complete"}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveCheckpoint(ctx, id, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateExecution(ctx, account, id, store.ExecutionUpdate{Status: store.StatusSuccess, Result: []byte(`{"status":"success"}`)}); err != nil {
		t.Fatal(err)
	}
}
