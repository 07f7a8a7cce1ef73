package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

func TestMigrateUsage(t *testing.T) {
	for _, args := range [][]string{
		{"migrate"},
		{"migrate", "--from", t.TempDir()},
		{"migrate", "--from", t.TempDir(), "--to", "mysql://x"},
		{"migrate", "--from", t.TempDir(), "--to", "postgres://127.0.0.1:1/x"}, // no sluice.db there
		{"migrate", "extra", "--from", "a", "--to", "postgres://x"},
	} {
		if code, _, errOut := sluice(t, "", args...); code != cli.ExitInvalid {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}

// server is a sluice server on dir (SQLite, or PostgreSQL when dsn is set).
type server struct {
	t     *testing.T
	app   *gateway.App
	http  *httptest.Server
	admin string
}

func openServer(t *testing.T, dir, dsn string) *server {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir, cfg.Store.DSN = dir, dsn
	cfg.AdminKey = config.NewSecret("admin-" + strings.Repeat("m", 40))
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, app: app, http: httptest.NewServer(app.Server.Handler()), admin: cfg.AdminKey.Reveal()}
	t.Cleanup(s.close)
	return s
}

func (s *server) close() {
	if s.app != nil {
		s.http.Close()
		s.app.Close()
		s.app = nil
	}
}

func (s *server) call(method, path, key string, body any) (int, map[string]any) {
	s.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.http.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

const storeFile = `{"type":"operationUpdate","operationId":"op","operation":{"StoreData":{"inputPath":"/input/v","storage":"file","key":"reports/one"}}}
{"type":"beginExecution","executionId":"mig-store","operationOrder":["op"]}
`

const loadFile = `{"type":"operationUpdate","operationId":"op","operation":{"LoadData":{"storage":"file","key":"reports/one","outputPath":"/workflow/v"}}}
{"type":"beginExecution","executionId":"mig-load","operationOrder":["op"]}
`

// A single-machine server's data moves to PostgreSQL: after the copy, a
// gateway on PostgreSQL (with the same keys) takes the old API key, finds the
// old execution and reads the old file value; running the copy again is safe.
func TestMigrateToPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	one := openServer(t, dir, "")
	code, body := one.call("POST", "/api/v1/admin/accounts", one.admin, map[string]any{"name": "a", "permissions": map[string]any{"operations": []string{"*"}}})
	if code != http.StatusCreated {
		t.Fatalf("account: %d %v", code, body)
	}
	key := body["api_key"].(string)
	code, body = one.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": storeFile, "input": map[string]any{"v": "kept"}})
	if code != http.StatusOK || body["status"] != "success" {
		t.Fatalf("store: %d %v", code, body)
	}
	execID := body["execution_id"].(string)

	// While the server runs, its data directory is locked.
	if code, _, errOut := sluice(t, "", "migrate", "--from", dir, "--to", dsn); code != cli.ExitFailed || !strings.Contains(errOut, "in use") {
		t.Fatalf("migrate while the server runs: %d %s", code, errOut)
	}
	one.close()

	code, out, errOut := sluice(t, "", "migrate", "--from", dir, "--to", dsn)
	if code != cli.ExitOK || !strings.Contains(out, "verified") || !strings.Contains(out, "master.key") || strings.Contains(errOut, "copied") {
		t.Fatalf("migrate: %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"executions", "audit", "files (file storage)", "queue_items: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report without %q:\n%s", want, out)
		}
	}

	pg := openServer(t, dir, dsn)
	if code, body := pg.call("GET", "/api/v1/executions/"+execID, key, nil); code != http.StatusOK || body["status"] != "success" {
		t.Fatalf("the old execution through the old key: %d %v", code, body)
	}
	code, body = pg.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": loadFile})
	if code != http.StatusOK || body["results"].(map[string]any)["op"] != "kept" {
		t.Fatalf("the old file value: %d %v", code, body)
	}
	pg.close()

	// Again: nothing to copy; the rows the PostgreSQL gateway wrote since are
	// reported as extra, and nothing is overwritten.
	// On a terminal, a progress line per table goes to stderr (piped, above:
	// none).
	code, out, errOut = sluiceTTY(t, "migrate", "--from", dir, "--to", dsn)
	if code != cli.ExitFailed || !strings.Contains(out, "extra") {
		t.Fatalf("second migrate after use: %d\n%s", code, out)
	}
	m := regexp.MustCompile(`^copied 1/(\d+) tables \(\w+\)\n`).FindStringSubmatch(errOut)
	if m == nil || !strings.Contains(errOut, "tables (accounts)\n") || !strings.Contains(errOut, "copied "+m[1]+"/"+m[1]+" tables") {
		t.Fatalf("no progress from the first table to the last on a terminal:\n%s", errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "accounts" && f[1] != "0" {
			t.Fatalf("copied again: %s", line)
		}
	}

	// Another installation's keys are refused for this database.
	other := t.TempDir()
	openServer(t, other, "").close()
	if code, _, errOut := sluice(t, "", "migrate", "--from", other, "--to", dsn); code != cli.ExitFailed || !strings.Contains(errOut, "other keys") {
		t.Fatalf("other keys: %d %s", code, errOut)
	}
}
