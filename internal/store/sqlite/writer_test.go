package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"testing"
)

func openWriterTest(t *testing.T, o Options) (*DB, string) {
	t.Helper()
	o.Dir = t.TempDir()
	db, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.Exec(`CREATE TABLE w_test (k TEXT PRIMARY KEY)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return db, o.Dir
}

// batchOf makes writes inserting keys; a key listed twice fails the second
// time (its primary key is taken). runs counts each function's runs.
func batchOf(keys []string, runs []int) []*writeReq {
	batch := make([]*writeReq, len(keys))
	for i, k := range keys {
		batch[i] = &writeReq{ctx: context.Background(), done: make(chan struct{}, 1), fn: func(tx *Tx) error {
			runs[i]++
			if _, err := tx.Exec(`INSERT INTO w_test (k) VALUES (?)`, k+"-a"); err != nil {
				return err
			}
			_, err := tx.Exec(`INSERT INTO w_test (k) VALUES (?)`, k)
			return err
		}}
	}
	return batch
}

func keysIn(t *testing.T, db *DB) map[string]bool {
	t.Helper()
	rows, err := db.rdb.Query(`SELECT k FROM w_test`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		got[k] = true
	}
	return got
}

// A batch whose writes all succeed runs each once, together; a batch with a
// failing write is run again one savepoint a write: the failing write's
// changes are all undone (its first insert too), the others' all kept.
func TestWriterBatchRunsAgainWhenOneFails(t *testing.T) {
	db, dir := openWriterTest(t, Options{})
	// A writer of the test's own on a second connection to the file, not
	// started: the test hands it batches as the writer goroutine would.
	db2, err := sql.Open("sqlite", filepath.Join(dir, FileName)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	w := newWriter(db2, 512, slog.New(slog.DiscardHandler))
	if w.conn, err = db2.Conn(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer w.conn.Close()

	runs := make([]int, 3)
	batch := batchOf([]string{"a", "b", "c"}, runs)
	w.commit(batch)
	for i, r := range batch {
		if r.err != nil || runs[i] != 1 {
			t.Fatalf("write %d: error %v after %d runs, want none after 1", i, r.err, runs[i])
		}
	}

	runs = make([]int, 4)
	batch = batchOf([]string{"d", "a", "e", "d"}, runs) // "a" is taken; the second "d" meets the first
	w.commit(batch)
	for i, want := range []bool{true, false, true, false} {
		if (batch[i].err == nil) != want {
			t.Errorf("write %d: error %v, want success %v", i, batch[i].err, want)
		}
	}
	if runs[0] != 2 || runs[1] != 2 || runs[2] != 1 || runs[3] != 1 {
		t.Errorf("runs %v: the writes up to the first failure run twice, the rest once", runs)
	}
	got := keysIn(t, db)
	for _, k := range []string{"a", "a-a", "b", "b-a", "c", "c-a", "d", "d-a", "e", "e-a"} {
		if !got[k] {
			t.Errorf("key %q not stored", k)
		}
	}
	if len(got) != 10 {
		t.Errorf("stored %v, want the 10 keys of the writes that succeeded", got)
	}
	if c, n := w.commits.Load(), w.writes.Load(); c != 2 || n != 5 {
		t.Errorf("%d commits of %d writes, want 2 of 5", c, n)
	}
}
