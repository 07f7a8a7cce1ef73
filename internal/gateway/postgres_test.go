package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// Two gateways on one PostgreSQL (and one data directory for the key files,
// which every gateway must share): an account made through one works on the
// other, and an asynchronous execution submitted to one is seen finished on
// both. Runs when SLUICE_TEST_POSTGRES is set.
func TestTwoGatewaysOnPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	a := startServer(t, dir, onPG)
	b := startServer(t, dir, onPG)
	if a.admin == "" || b.admin != "" {
		t.Fatalf("the admin key is made once: %v %v", a.admin != "", b.admin != "")
	}
	b.admin = a.admin
	_, key := a.account(map[string]any{"operations": []string{"Wait", "FilterData"}}, nil)
	doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":10}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
	r := b.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, http.StatusOK)
	if r.str("status") != "success" {
		t.Fatalf("sync on b: %s", r.raw)
	}
	q := a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": jsonl(
		`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":10}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`), "async": true}).want(t, http.StatusAccepted)
	id := q.str("execution_id")
	waitFor(t, 20e9, "the async execution to finish", func() bool {
		return b.call("GET", "/api/v1/executions/"+id, key, nil).str("status") == "success"
	})
	// The execution run through b is visible through a.
	a.call("GET", "/api/v1/executions/"+r.str("execution_id"), key, nil).want(t, http.StatusOK)
}

// A database that does not answer: a clear error naming it (never its
// password), and no server.
func TestPostgresUnreachable(t *testing.T) {
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.Store.DSN = "postgres://sluice:s3cr3t-pw@127.0.0.1:1/sluice?sslmode=disable&connect_timeout=2"
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err == nil {
		app.Close()
		t.Fatal("a server on a database that does not answer")
	}
	if strings.Contains(err.Error(), "s3cr3t-pw") || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("error: %v", err)
	}
}
