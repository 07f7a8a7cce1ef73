// Package pgtest gives tests a throwaway PostgreSQL database. The server is
// named by SLUICE_TEST_POSTGRES (a connection string whose user may create
// databases, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable);
// tests that need it skip when it is unset. Each database has a random name
// and is dropped when the test ends, so parallel packages and repeated runs
// never meet; databases left by a run that was killed are dropped two
// hours later by the next run.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/ids"
)

// Env is the variable that names the test server.
const Env = "SLUICE_TEST_POSTGRES"

// prefix starts every throwaway database's name; the creation time follows.
const prefix = "sluice_test_"

// staleAfter is the age past which a throwaway database is taken for a
// leftover of a run that was killed (fuzzing workers are, when fuzzing
// ends): far longer than any test run.
const staleAfter = 2 * time.Hour

// AdminDSN returns the server's connection string, or skips t when none is
// set.
func AdminDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL to test against", Env)
	}
	return dsn
}

var sweep sync.Once

// NewDatabase creates an empty database for t and returns its connection
// string; it is dropped (with any connection still open to it) when t ends.
// Without SLUICE_TEST_POSTGRES, t is skipped.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := AdminDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: %s does not answer: %v", Env, err)
	}
	defer conn.Close(ctx)
	sweep.Do(func() { dropStale(ctx, t, conn) })

	name := fmt.Sprintf("%s%d_%s", prefix, time.Now().Unix(), ids.New(ids.Tail))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() { Drop(t, admin, name) })
	dsn, err := WithDatabase(admin, name)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Drop drops the database name, ending the connections still open to it.
func Drop(t testing.TB, admin, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
	}
}

// WithDatabase returns dsn with its database replaced by name, for both
// forms of connection string (URL and key=value pairs).
func WithDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("pgtest: %s is not a URL: %w", Env, err)
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	// In key=value form the last setting of a key wins.
	return dsn + " dbname=" + name, nil
}

// dropStale drops throwaway databases older than staleAfter: leftovers of
// runs that were killed before their cleanups ran.
func dropStale(ctx context.Context, t testing.TB, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'sluice\_test\_%'`)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, n := range names {
		stamp, _, ok := strings.Cut(strings.TrimPrefix(n, prefix), "_")
		sec, err := strconv.ParseInt(stamp, 10, 64)
		if !ok || err != nil || time.Since(time.Unix(sec, 0)) < staleAfter {
			continue
		}
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{n}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Logf("pgtest: stale database %s not dropped: %v", n, err)
		}
	}
}
