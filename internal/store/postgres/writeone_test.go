package postgres_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

// holdTable locks table from another connection until the returned func is
// called: statements that write it wait for the lock meanwhile.
func holdTable(t *testing.T, dsn, table string) (release func()) {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE `+table+` IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			tx.Rollback(ctx)
			conn.Close(ctx)
		})
	}
	t.Cleanup(release)
	return release
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited ten seconds for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// writeAll runs the statements from one goroutine each and returns their
// errors in order, once the table lock held meanwhile has been released:
// the senders take the first statements and wait on the lock, the others
// queue behind them, and go in batches once the lock is gone.
func writeAll(t *testing.T, db *postgres.DB, dsn string, keys []string) []error {
	t.Helper()
	release := holdTable(t, dsn, "rt")
	errs := make([]error, len(keys))
	_, taken0, _ := db.OneWriteCounts()
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Go(func() { _, errs[i] = db.WriteOne(ctx, `INSERT INTO rt VALUES ($1)`, k) })
	}
	// A sender that took a write waits on the lock with it (and with any
	// others it found waiting); the rest wait to be taken.
	waitFor(t, "every write to be taken or queued", func() bool {
		_, taken, queued := db.OneWriteCounts()
		return taken-taken0+queued == int64(len(keys))
	})
	release()
	wg.Wait()
	return errs
}

func oneWritesDB(t *testing.T) (*postgres.DB, string, *syncCounter) {
	t.Helper()
	db, counter := countedDB(t, 0)
	dsn := db.Pool().Config().ConnConfig.ConnString()
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE rt (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	return db, dsn, counter
}

// Lone statements of concurrent callers go in batches, a round trip (one
// Sync: one implicit transaction, one commit) each, and every one is
// stored.
func TestWriteOneBatchesConcurrentWrites(t *testing.T) {
	db, dsn, counter := oneWritesDB(t)
	const n = 40
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprint("k", i)
	}
	b0, s0, _ := db.OneWriteCounts()
	rt0 := counter.n.Load()
	for i, err := range writeAll(t, db, dsn, keys) {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	b1, s1, _ := db.OneWriteCounts()
	if s1-s0 != n || b1-b0 > 2*postgres.OneSenders {
		t.Fatalf("%d statements in %d batches, want %d in at most %d", s1-s0, b1-b0, n, 2*postgres.OneSenders)
	}
	// Each batch: one round trip, and one more on a connection that had
	// not prepared the statement yet: at most two waves of OneSenders
	// batches (those held by the lock, then what queued behind them), and
	// the lock's own BEGIN, LOCK and ROLLBACK.
	if rt, most := counter.n.Load()-rt0, int64(4*postgres.OneSenders+3); rt > most {
		t.Fatalf("%d writes took %d round trips, want at most %d", n, rt, most)
	}
	var stored int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM rt`).Scan(&stored); err != nil || stored != n {
		t.Fatalf("%d rows stored (%v), want %d", stored, err, n)
	}
}

// A statement that fails in a batch fails alone: the others of its batch,
// rolled back with it, are sent again and stored, and each caller hears its
// own outcome.
func TestWriteOneFailureInABatchIsItsOwn(t *testing.T) {
	db, dsn, _ := oneWritesDB(t)
	if _, err := db.WriteOne(ctx, `INSERT INTO rt VALUES ('taken')`); err != nil {
		t.Fatal(err)
	}
	const n = 24
	keys := make([]string, n)
	bad := map[int]bool{7: true, 15: true, 16: true}
	for i := range keys {
		keys[i] = fmt.Sprint("k", i)
		if bad[i] {
			keys[i] = "taken"
		}
	}
	for i, err := range writeAll(t, db, dsn, keys) {
		if bad[i] {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "23505" {
				t.Errorf("write %d (a taken key): %v, want a unique violation", i, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	var stored int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM rt`).Scan(&stored); err != nil || stored != n-len(bad)+1 {
		t.Fatalf("%d rows stored (%v), want %d", stored, err, n-len(bad)+1)
	}
}

// Writes after Close are refused, not left waiting.
func TestWriteOneAfterClose(t *testing.T) {
	db, _, _ := oneWritesDB(t)
	db.Close()
	_, err := db.WriteOne(ctx, `INSERT INTO rt VALUES ('late')`)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Unavailable {
		t.Fatalf("a write after Close: %v, want Unavailable", err)
	}
}
