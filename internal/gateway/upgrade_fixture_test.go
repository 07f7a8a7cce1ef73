package gateway_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to read the queue
	_ "modernc.org/sqlite"             // the "sqlite" driver, to read the queue and VACUUM

	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// makeUpgradeFixturesEnv asks for TestMakeUpgradeFixtures to run.
const makeUpgradeFixturesEnv = "SLUICE_MAKE_UPGRADE_FIXTURES"

// TestMakeUpgradeFixtures makes the fixtures of TestUpgradeInPlace with the
// code checked out: a server process on SQLite, then one on PostgreSQL (when
// SLUICE_TEST_POSTGRES is set), is given an account, a credential, agents
// and runs, some finished and some in flight, and is killed with SIGKILL;
// what it leaves is written to testdata/upgrade (README.md there).
//
//	SLUICE_MAKE_UPGRADE_FIXTURES=1 SLUICE_TEST_POSTGRES=postgres://... \
//	  go test ./internal/gateway -run TestMakeUpgradeFixtures
func TestMakeUpgradeFixtures(t *testing.T) {
	if os.Getenv(makeUpgradeFixturesEnv) == "" {
		t.Skipf("set %s=1 to make the upgrade fixtures again (%s/README.md)", makeUpgradeFixturesEnv, upgradeFixtures)
	}
	madeBy := gitCommit(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		m := makeUpgradeState(t, dir, madeBy, func(id string) bool {
			return handedBack(t, "sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?mode=ro",
				`SELECT count(*) FROM queue_items WHERE topic = 'executions' AND id = ? AND owner IS NULL`, id)
		})
		out := filepath.Join(upgradeFixtures, "sqlite")
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		copyTree(t, dir, out, "addr", "addr.tmp")
		vacuum(t, filepath.Join(out, sqlite.FileName))
		writeUpgradeManifest(t, "sqlite.json", m)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.NewDatabase(t)
		t.Setenv("SLUICE_STORE", dsn) // the child reads it as store.dsn
		dir := t.TempDir()
		m := makeUpgradeState(t, dir, madeBy, func(id string) bool {
			return handedBack(t, "pgx", dsn,
				`SELECT count(*) FROM queue_items WHERE topic = 'executions' AND id = $1 AND owner IS NULL`, id)
		})
		// The data directory of a gateway on PostgreSQL holds its key files.
		out := filepath.Join(upgradeFixtures, "postgres")
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		copyTree(t, dir, out, "addr", "addr.tmp")
		// Plain SQL of INSERT statements, without owners or grants: the test
		// loads it into a fresh database of any name through one connection.
		dump := exec.Command("pg_dump", "--no-owner", "--no-privileges", "--inserts", dsn)
		dump.Stderr = os.Stderr
		script, err := dump.Output()
		if err != nil {
			t.Fatalf("pg_dump: %v", err)
		}
		if err := os.WriteFile(filepath.Join(upgradeFixtures, "postgres.sql"), sqlOnly(script), 0o644); err != nil {
			t.Fatal(err)
		}
		writeUpgradeManifest(t, "postgres.json", m)
	})
}

// makeUpgradeState runs a server process on dir (and the store of
// SLUICE_STORE, if set), leaves in it what upgradeManifest names, and kills
// it with SIGKILL: no graceful stop, as a crash or an operator's kill -9
// would leave it.
//
// parked reports whether the execution id has parked: its queue item handed
// back, due at its wake-up time (read from the store's tables: the API does
// not tell a parked execution from a running one).
func makeUpgradeState(t *testing.T, dir, madeBy string, parked func(id string) bool) upgradeManifest {
	t.Helper()
	t.Setenv("SLUICE_EGRESS_ALLOW_PRIVATE", "127.0.0.1") // the agents and upstreams below
	extractURL := mockAgent(t, "extract")
	stallURL, stalled := stallAgent(t)
	cmd, url := startChild(t, dir, upgradeAdminKey)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// The harness's calls, to the child's URL (never closed: the kill ends it).
	s := &testServer{t: t, http: &httptest.Server{URL: url}, admin: upgradeAdminKey}
	m := upgradeManifest{MadeBy: madeBy, MadeAt: time.Now().UTC().Format(time.RFC3339)}

	s.call("PUT", "/api/v1/admin/credentials/"+upgradeCredentialID, s.admin,
		map[string]any{"type": "bearer-token", "value": upgradeCredentialValue}).want(t, http.StatusOK)
	for name, u := range map[string]string{"extract": extractURL, "stall": stallURL} {
		s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": name, "url": u}).want(t, http.StatusCreated)
	}
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance",
		"document": withChecksum(t, approveCap), "file": "approve.yaml"}).want(t, http.StatusCreated)
	m.AccountID, m.APIKey = s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"},
		"credentials": []string{upgradeCredentialID}, "agents": []string{"extract", "stall"}, "capability_level": "basic"},
		// No request limits: the tests poll, and on PostgreSQL the counters
		// of the minute the fixture was made are in it.
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	key := m.APIKey

	// Finished: one run of each kind.
	fin := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doubling("upgrade-finished", 0),
		"input": map[string]any{"nums": []int{1, 2}}}).want(t, http.StatusOK)
	if m.FinishedExecution = fin.str("execution_id"); fin.str("status") != "success" {
		t.Fatalf("finished execution: %s", fin.raw)
	}
	run := s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 10}}).want(t, http.StatusOK)
	m.FinishedCapabilityRun = run.str("run_id")
	if d := s.call("POST", "/api/v1/a2s/runs/"+m.FinishedCapabilityRun+"/decisions", key,
		map[string]any{"answer": map[string]any{"verdict": "no"}}).want(t, http.StatusOK); d.str("status") != "success" {
		t.Fatalf("finished capability run: %s", d.raw)
	}
	const runs = "/api/v1/agent-workflows/runs"
	m.FinishedAgentWorkflow = s.call("POST", runs, key, map[string]any{"workflow": twoStepWorkflow("extract"),
		"input": map[string]any{"text": "finished"}}).want(t, http.StatusAccepted).str("run_id")
	waitFor(t, 30*time.Second, "the agent workflow to finish", func() bool {
		return s.call("GET", runs+"/"+m.FinishedAgentWorkflow, key, nil).str("status") == "success"
	})

	// In flight.
	run = s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 40}}).want(t, http.StatusOK)
	if m.WaitingCapabilityRun = run.str("run_id"); run.str("status") != "waiting" {
		t.Fatalf("waiting capability run: %s", run.raw)
	}
	// A Wait longer than a second parks an asynchronous execution: its
	// queue item, due at the wake-up time, is its durable timer. 10 s is
	// past long before the test runs.
	m.ParkedExecution = s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doubling("upgrade-parked", 10_000),
		"input": map[string]any{"nums": []int{3, 4}}, "async": true}).want(t, http.StatusAccepted).str("execution_id")
	waitFor(t, 30*time.Second, "the execution to park", func() bool {
		g := s.call("GET", "/api/v1/executions/"+m.ParkedExecution, key, nil)
		if g.status != http.StatusOK || g.str("status") != "queued" && g.str("status") != "running" {
			t.Fatalf("the parked execution: %d %s", g.status, g.raw)
		}
		return parked(m.ParkedExecution)
	})
	m.MidwayAgentWorkflow = s.call("POST", runs, key, map[string]any{"workflow": twoStepWorkflow("stall"),
		"input": map[string]any{"text": "hello"}}).want(t, http.StatusAccepted).str("run_id")
	select {
	case <-stalled: // step a is recorded, step b's agent has the task
	case <-time.After(30 * time.Second):
		t.Fatal("the second step never reached its agent")
	}
	if g := s.call("GET", runs+"/"+m.MidwayAgentWorkflow, key, nil); stepStatuses(g) != "a=completed b=running" {
		t.Fatalf("the agent workflow is not mid-way: %s", g.raw)
	}
	if g := s.call("GET", "/api/v1/executions/"+m.ParkedExecution, key, nil); g.str("status") != "running" {
		t.Fatalf("the parked execution: %s", g.raw)
	}

	_ = cmd.Process.Signal(syscall.SIGKILL)
	_, _ = cmd.Process.Wait()
	return m
}

// handedBack runs query, a count, with id in the database dsn of driver
// and reports whether it found one.
func handedBack(t *testing.T, driver, dsn, query, id string) bool {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query, id).Scan(&n); err != nil {
		t.Fatalf("reading the queue: %v", err)
	}
	return n == 1
}

// doubling is an A2E workflow with execution id id that waits waitMs (none
// when 0) and doubles /input/nums into its "double" result.
func doubling(id string, waitMs int) string {
	lines := []string{`{"type":"operationUpdate","operationId":"double","operation":{"TransformData":{"inputPath":"/input/nums","transform":"map","config":{"expression":"item * 2"},"outputPath":"/workflow/doubled"}}}`}
	order := `["double"]`
	if waitMs > 0 {
		lines = append(lines, fmt.Sprintf(`{"type":"operationUpdate","operationId":"wait","operation":{"Wait":{"duration":%d}}}`, waitMs))
		order = `["wait","double"]`
	}
	lines = append(lines, `{"type":"beginExecution","executionId":"`+id+`","operationOrder":`+order+`}`)
	return jsonl(lines...)
}

// vacuum folds the write-ahead log of the SQLite database at path into it
// and compacts it: the fixture is one small file.
func vacuum(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// sqlOnly drops the psql meta-commands from a plain pg_dump (recent ones
// fence the script with \restrict and \unrestrict): the test runs the
// script through a driver, which knows SQL only.
func sqlOnly(script []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(script, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte(`\`)) {
			out = append(out, line...)
		}
	}
	return out
}

// gitCommit is the commit checked out, with "+changes" when files other
// than the fixtures differ from it.
func gitCommit(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	commit := strings.TrimSpace(string(out))
	changes, err := exec.Command("git", "status", "--porcelain", "--", ":/", ":(exclude)"+upgradeFixtures).Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	if len(strings.TrimSpace(string(changes))) > 0 {
		commit += "+changes"
	}
	return commit
}
