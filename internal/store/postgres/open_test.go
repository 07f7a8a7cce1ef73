package postgres_test

import (
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// freePort is a loopback port where nothing listens.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// A start that cannot work says why, naming where, never the password.
func TestOpenErrors(t *testing.T) {
	const secret = "s3cret-Passw0rd"
	unreachable := fmt.Sprintf("postgres://sluice:%s@127.0.0.1:%d/sluice?sslmode=disable&connect_timeout=2", secret, freePort(t))
	cases := []struct {
		name string
		dsn  string
		kind fault.Kind
		says []string
	}{
		{"empty", "", fault.Invalid, []string{"not set"}},
		{"unreadable", "postgres://sluice:" + secret + "@127.0.0.1:notaport/db", fault.Invalid, []string{"cannot be read"}},
		{"unreachable", unreachable, fault.Unavailable, []string{"127.0.0.1", "cannot be reached"}},
	}
	if dsn := os.Getenv(pgtest.Env); dsn != "" {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		host := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
		cases = append(cases,
			struct {
				name string
				dsn  string
				kind fault.Kind
				says []string
			}{"unknown user", fmt.Sprintf("postgres://nobody_here:%s@%s/postgres?sslmode=disable", secret, host), fault.Unavailable,
				[]string{"nobody_here", "credentials"}},
			struct {
				name string
				dsn  string
				kind fault.Kind
				says []string
			}{"missing database", mustWithDatabase(t, dsn, "sluice_no_such_db"), fault.Unavailable,
				[]string{"sluice_no_such_db", "no database"}},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := postgres.Open(ctx, postgres.Options{DSN: c.dsn, ConnectTimeout: 2 * time.Second})
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			fe, ok := fault.As(err)
			if !ok || fe.Kind != c.kind {
				t.Fatalf("error %v (%T), want kind %v", err, err, c.kind)
			}
			t.Logf("%s (suggestions %q)", fe.Message, fe.Suggestions)
			for _, s := range c.says {
				if !strings.Contains(fe.Message, s) {
					t.Errorf("message %q does not say %q", fe.Message, s)
				}
			}
			all := fmt.Sprintf("%s %v %v %v", fe.Message, fe.Details, fe.Suggestions, fe.Cause)
			if strings.Contains(all, secret) {
				t.Errorf("the error shows the password: %s", all)
			}
		})
	}
}

func mustWithDatabase(t *testing.T, dsn, name string) string {
	t.Helper()
	out, err := pgtest.WithDatabase(dsn, name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Processes that start together migrate once: the advisory lock makes the
// others wait and find nothing to do. Opening again changes nothing.
func TestConcurrentStartersMigrateOnce(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
			if err != nil {
				errs <- err
				return
			}
			db.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, top int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &top); err != nil {
		t.Fatal(err)
	}
	if n != postgres.SchemaVersion() || top != postgres.SchemaVersion() {
		t.Fatalf("%d migrations recorded up to %d, want %d", n, top, postgres.SchemaVersion())
	}
}

// A database written by a newer sluice is refused, naming both versions.
func TestNewerSchemaRefused(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	ahead := postgres.SchemaVersion() + 1
	if _, err := db.Pool().Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'future.sql', now())`, ahead); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = postgres.Open(ctx, postgres.Options{DSN: dsn})
	if fault.KindOf(err) != fault.Unavailable || !strings.Contains(err.Error(), fmt.Sprint(ahead)) {
		t.Fatalf("opening a newer schema: %v", err)
	}
}

// search_path in the DSN keeps the tables in a schema of their own.
func TestSearchPath(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `CREATE SCHEMA sluice`); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn + sep + "search_path=sluice"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}
	var inSchema, inPublic *string
	if err := admin.QueryRow(ctx, `SELECT to_regclass('sluice.accounts')::text, to_regclass('public.accounts')::text`).Scan(&inSchema, &inPublic); err != nil {
		t.Fatal(err)
	}
	if inSchema == nil || inPublic != nil {
		t.Fatalf("tables in schema sluice: %v, in public: %v", inSchema, inPublic)
	}
}
