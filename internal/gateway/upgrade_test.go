package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// TestUpgradeInPlace opens the code under test on what an earlier sluice
// left behind when it was killed (testdata/upgrade, made by
// TestMakeUpgradeFixtures; README.md there says with which commit): a data
// directory on SQLite, and a PostgreSQL database (when SLUICE_TEST_POSTGRES
// is set). The account's key and the vault credential must still work, the
// finished runs read back with their results, and the runs in flight finish:
// the parked execution, the agent workflow from its second step, the
// capability run with its decision.
func TestUpgradeInPlace(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		copyTree(t, filepath.Join(upgradeFixtures, "sqlite"), dir)
		checkUpgrade(t, readUpgradeManifest(t, "sqlite.json"), dir)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.NewDatabase(t)
		loadSQL(t, dsn, filepath.Join(upgradeFixtures, "postgres.sql"))
		dir := t.TempDir()
		copyTree(t, filepath.Join(upgradeFixtures, "postgres"), dir)
		checkUpgrade(t, readUpgradeManifest(t, "postgres.json"), dir, func(c *config.Config) { c.Store.DSN = dsn })
	})
}

// checkUpgrade opens a server on dir (with the server options opts) and
// checks what m names in it, as TestUpgradeInPlace says.
func checkUpgrade(t *testing.T, m upgradeManifest, dir string, opts ...any) {
	t.Helper()
	withAdmin := func(c *config.Config) { c.AdminKey = config.NewSecret(upgradeAdminKey) }
	opts = append(opts, withAdmin)
	extract, stall := newRecordingAgent(t, "extract"), newRecordingAgent(t, "stall")
	const runs = "/api/v1/agent-workflows/runs"

	// The fixture's agents were loopback servers of the process that made
	// it, long gone. Open first without agent workers, so that no agent is
	// called, re-point the registrations to this test's agents (registering
	// a name again replaces its entry), and reopen with the workers.
	s := startServer(t, dir, append(opts, func(c *config.Config) { c.Agents.Workers = 0 })...)
	s.admin = upgradeAdminKey
	key := m.APIKey
	if g := s.call("GET", runs+"/"+m.MidwayAgentWorkflow, key, nil).want(t, http.StatusOK); stepStatuses(g) != "a=completed b=running" {
		t.Fatalf("the fixture's agent workflow is not mid-way: %s", g.raw)
	}
	for name, a := range map[string]*recordingAgent{"extract": extract, "stall": stall} {
		s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": name, "url": a.URL}).want(t, http.StatusCreated)
	}
	s.close()
	s = startServer(t, dir, opts...)
	s.admin = upgradeAdminKey

	// The key works and the finished runs read back with their results.
	if r := s.call("GET", "/api/v1/executions/"+m.FinishedExecution, key, nil).want(t, http.StatusOK); r.str("status") != "success" || fmt.Sprint(r.get("results.double")) != "[2 4]" {
		t.Fatalf("finished execution: %s", r.raw)
	}
	checkOneFinalFrame(t, s.http.URL, key, m.FinishedExecution)
	if r := s.call("GET", "/api/v1/a2s/runs/"+m.FinishedCapabilityRun, key, nil).want(t, http.StatusOK); r.str("status") != "success" || r.str("result.outputs.verdict") != "refused" {
		t.Fatalf("finished capability run: %s", r.raw)
	}
	if r := s.call("GET", runs+"/"+m.FinishedAgentWorkflow, key, nil).want(t, http.StatusOK); r.str("status") != "success" || stepStatuses(r) != "a=completed b=completed" || !strings.Contains(string(r.raw), `"text":"finished"`) {
		t.Fatalf("finished agent workflow: %s", r.raw)
	}
	s.call("GET", "/api/v1/executions/"+m.FinishedExecution, "", nil).want(t, http.StatusUnauthorized)

	// The credential opens: an ApiCall sends it to the upstream.
	var mu sync.Mutex
	var seen string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Get("Authorization")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer upstream.Close()
	call := jsonl(`{"type":"operationUpdate","operationId":"call","operation":{"ApiCall":{"method":"GET","url":"`+upstream.URL+`/","headers":{"Authorization":{"credentialRef":{"id":"`+upgradeCredentialID+`"}}},"retry":{"maxRetries":0},"outputPath":"/workflow/r"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["call"]}`)
	if r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": call}).want(t, http.StatusOK); r.str("status") != "success" {
		t.Fatalf("a call with the credential: %s", r.raw)
	}
	mu.Lock()
	if seen != "Bearer "+upgradeCredentialValue {
		t.Errorf("the upstream was sent %q, not the stored credential", seen)
	}
	mu.Unlock()

	// The capability run takes its decision.
	if r := s.call("GET", "/api/v1/a2s/runs/"+m.WaitingCapabilityRun, key, nil).want(t, http.StatusOK); r.str("status") != "waiting" || r.str("result.pending.prompt") != "Approve a refund of 40 EUR?" {
		t.Fatalf("waiting capability run: %s", r.raw)
	}
	if d := s.call("POST", "/api/v1/a2s/runs/"+m.WaitingCapabilityRun+"/decisions", key,
		map[string]any{"answer": map[string]any{"verdict": "yes"}}).want(t, http.StatusOK); d.str("status") != "success" || d.str("outputs.verdict") != "approved" {
		t.Fatalf("decision: %s", d.raw)
	}

	// The parked execution wakes (its time is past) and finishes, once.
	waitFor(t, time.Minute, "the parked execution to finish", func() bool {
		st := s.call("GET", "/api/v1/executions/"+m.ParkedExecution, key, nil).str("status")
		return st != "running" && st != "queued"
	})
	if r := s.call("GET", "/api/v1/executions/"+m.ParkedExecution, key, nil); r.str("status") != "success" || fmt.Sprint(r.get("results.double")) != "[6 8]" {
		t.Fatalf("parked execution: %s", r.raw)
	}
	checkOneFinalFrame(t, s.http.URL, key, m.ParkedExecution)
	// It resumed from its checkpoint: it parked once, before the kill, and
	// did not start its Wait over.
	frames, _ := readSSEAt(t, s.http.URL, key, "/api/v1/executions/"+m.ParkedExecution+"/events")
	parks := 0
	for _, f := range frames {
		if body, _ := f.frame["body"].(map[string]any); body != nil {
			if delta, _ := body["delta"].(map[string]any); delta != nil && delta["kind"] == "parked" {
				parks++
			}
		}
	}
	if parks != 1 {
		t.Fatalf("the parked execution parked %d times: it did not resume from its checkpoint", parks)
	}

	// The agent workflow resumes from its second step, with the first
	// step's recorded output, and the first step's agent is not called
	// again.
	var r response
	waitFor(t, time.Minute, "the agent workflow to finish", func() bool {
		r = s.call("GET", runs+"/"+m.MidwayAgentWorkflow, key, nil)
		st := r.str("status")
		return st != "running" && st != "queued"
	})
	if r.str("status") != "success" || stepStatuses(r) != "a=completed b=completed" || !strings.Contains(r.str("output.echo.from"), "hello") {
		t.Fatalf("agent workflow: %s", r.raw)
	}
	if !stall.called(m.MidwayAgentWorkflow + "/b") {
		t.Fatal("the second step's agent was not called")
	}
	if extract.called(m.MidwayAgentWorkflow + "/a") {
		t.Fatal("the first step, recorded before the kill, was called again")
	}
}

// loadSQL runs the SQL script at path (a plain pg_dump) in the database dsn.
func loadSQL(t *testing.T, dsn, path string) {
	t.Helper()
	script, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Without arguments, pgx sends the script as one simple query: every
	// statement in it runs, in order, in one implicit transaction.
	if _, err := conn.Exec(ctx, string(script)); err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
}
