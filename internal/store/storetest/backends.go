package storetest

import (
	"context"
	"os"
	"testing"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// Backends opens an empty store of each backend, by name, on clk (nil: the
// real clock): SQLite always, PostgreSQL when SLUICE_TEST_POSTGRES is set
// (pgtest). Each is closed when tb ends. Code built on the store, such as its
// adapters outside this package, is tested on every backend this way.
func Backends(tb testing.TB, clk clock.Clock) map[string]store.Store {
	tb.Helper()
	out := map[string]store.Store{}
	lite, err := sqlite.Open(context.Background(), sqlite.Options{Dir: tb.TempDir(), Clock: clk})
	if err != nil {
		tb.Fatal(err)
	}
	out["sqlite"] = lite
	if os.Getenv(pgtest.Env) != "" {
		pg, err := postgres.Open(context.Background(), postgres.Options{DSN: pgtest.NewDatabase(tb), Clock: clk})
		if err != nil {
			tb.Fatal(err)
		}
		out["postgres"] = pg
	}
	for _, s := range out {
		tb.Cleanup(func() { s.Close() })
	}
	return out
}
