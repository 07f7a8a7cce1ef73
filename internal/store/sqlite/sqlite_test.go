package sqlite_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

func openTemp(t testing.TB) store.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

func FuzzCursors(f *testing.F) { storetest.FuzzCursors(f, openTemp(f)) }

// Group commit off must meet the same contract.
func TestContractWithoutGroupCommit(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := sqlite.Open(context.Background(), sqlite.Options{Dir: t.TempDir(), MaxBatch: 1})
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}
