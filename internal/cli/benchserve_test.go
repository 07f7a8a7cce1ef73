package cli_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// One run measures SQLite and PostgreSQL with one and two gateways, each
// PostgreSQL configuration in a schema of its own that is dropped after.
func TestBenchServeStores(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	code, out, errOut := sluice(t, "", "bench", "serve", "--clients", "4", "--duration", "300ms", "--warmup", "50ms", "--json",
		"--phases", "data", "--store", "sqlite", "--store", dsn, "--gateways", "1,2")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var rep struct {
		Phases []struct {
			Name     string
			Requests int64
			Errors   int64
			Store    string
			Gateways int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := []string{"data sqlite", "data postgres x1", "data postgres x2"}
	if len(rep.Phases) != len(want) {
		t.Fatalf("report: %s", out)
	}
	for i, p := range rep.Phases {
		if p.Name != want[i] || p.Requests == 0 || p.Errors != 0 {
			t.Fatalf("phase %d: %+v", i, p)
		}
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var left int
	if err := conn.QueryRow(context.Background(), `SELECT COUNT(*) FROM pg_namespace WHERE nspname LIKE 'sluice_bench_%'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d bench schemas left (%v)", left, err)
	}
	if code, _, _ := sluice(t, "", "bench", "serve", "--phases", "data", "--duration", "10ms", "--store", "postgres://127.0.0.1:1/x?connect_timeout=1"); code != 1 {
		t.Fatalf("an unreachable store: exit %d", code)
	}
}
