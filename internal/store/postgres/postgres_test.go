package postgres_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

var ctx = context.Background()

// openFresh opens the store on a new throwaway database.
func openFresh(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// The very same contract as the SQLite store, each case on its own database.
func TestContract(t *testing.T) {
	pgtest.AdminDSN(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openFresh(t) })
}

func FuzzCursors(f *testing.F) { storetest.FuzzCursors(f, openFresh(f)) }
