package sqlite_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// fillRuns stores n finished runs of account with frames of about 2 KB.
func fillRuns(t *testing.T, db *sqlite.DB, account, prefix string, n int) {
	t.Helper()
	frame := json.RawMessage(`{"data":"` + strings.Repeat("x", 2000) + `"}`)
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		e := store.Execution{ID: id, AccountID: account, Digest: "d", Document: []byte(`{}`), Status: store.StatusRunning, BudgetMs: 1}
		if _, _, err := db.CreateExecution(ctx, e); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendEvents(ctx, id, frame, frame, frame); err != nil {
			t.Fatal(err)
		}
		if err := db.UpdateExecution(ctx, account, id, store.ExecutionUpdate{Status: store.StatusSuccess, Result: frame}); err != nil {
			t.Fatal(err)
		}
	}
}

func stats(t *testing.T, db *sqlite.DB) store.StorageStats {
	t.Helper()
	st, err := db.StorageStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// pruneAll prunes every run of account that has finished, and gives the
// space back.
func pruneAll(t *testing.T, db *sqlite.DB, account string) {
	t.Helper()
	for {
		p, err := db.PruneRuns(ctx, account, time.Now().Add(time.Hour), 500)
		if err != nil {
			t.Fatal(err)
		}
		if !p.More {
			break
		}
	}
	if _, err := db.ReclaimSpace(ctx, 1<<30); err != nil {
		t.Fatal(err)
	}
}

// TestPrunedSpaceIsGivenBack: a new database is in incremental auto_vacuum
// mode, so after a prune ReclaimSpace shrinks the file; rounds of fill and
// prune leave it no bigger than the first round did.
func TestPrunedSpaceIsGivenBack(t *testing.T) {
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "a", Permissions: policy.Permissions{}}); err != nil {
		t.Fatal(err)
	}
	if mode := stats(t, db).AutoVacuum; mode != "incremental" {
		t.Fatalf("a new database's auto_vacuum is %q", mode)
	}
	var firstPeak int64
	for round := range 4 {
		fillRuns(t, db, "a", fmt.Sprintf("r%d", round), 200)
		peak := stats(t, db).DatabaseBytes
		if round == 0 {
			firstPeak = peak
		}
		pruneAll(t, db, "a")
		st := stats(t, db)
		t.Logf("round %d: %d bytes full, %d after the prune, %d free", round, peak, st.DatabaseBytes, st.FreeBytes)
		if st.FreeBytes != 0 || st.DatabaseBytes > peak/2 {
			t.Fatalf("round %d: after prune and reclaim %d bytes (%d free), full it was %d", round, st.DatabaseBytes, st.FreeBytes, peak)
		}
		if peak > firstPeak+firstPeak/10 {
			t.Fatalf("round %d: the database grew to %d bytes, the first round's peak was %d", round, peak, firstPeak)
		}
	}
}

// TestCompactSwitchesAnOldDatabase: a database made without incremental
// auto_vacuum gives nothing back until Compact rewrites it, which needs the
// server stopped.
func TestCompactSwitchesAnOldDatabase(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateAccount(ctx, store.Account{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sqlite.Compact(ctx, dir); err == nil {
		t.Fatal("Compact ran while the database was open")
	}
	db.Close()
	raw := rawDB(t, dir)
	storetest.ExecAll(t, func(stmt string) error { _, err := raw.Exec(stmt); return err }, `PRAGMA auto_vacuum = NONE`, `VACUUM`)
	raw.Close()

	db, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fillRuns(t, db, "a", "old", 100)
	pruneAll(t, db, "a")
	st := stats(t, db)
	if st.AutoVacuum != "none" || st.FreeBytes == 0 {
		t.Fatalf("an old database: %+v", st)
	}
	db.Close()

	before, after, err := sqlite.Compact(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if after >= before {
		t.Fatalf("Compact: %d bytes before, %d after", before, after)
	}
	db, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if st := stats(t, db); st.AutoVacuum != "incremental" || st.FreeBytes != 0 {
		t.Fatalf("after Compact: %+v", st)
	}
}

// TestPruneReadsTheFinishedIndex: the prune's selection is a seek on
// executions_account_finished (migration 0019), not a scan of the
// account's runs.
func TestPruneReadsTheFinishedIndex(t *testing.T) {
	got := queryPlan(t, closedStore(t), sqlstore.PrunableRuns, "a", 1, 10)
	if !strings.Contains(got, "USING INDEX executions_account_finished") || strings.Contains(got, "TEMP B-TREE") {
		t.Fatalf("the prune's plan: %s", got)
	}
}

// rawDB opens the database of a closed store without the store.
func rawDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
