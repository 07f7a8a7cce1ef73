package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/dirlock"
)

// autoVacuumModes names PRAGMA auto_vacuum's values.
var autoVacuumModes = map[int64]string{0: "none", 1: "full", 2: "incremental"}

// pageStats reads the file's page count, size and free pages and its
// auto_vacuum mode, on the read pool.
func (db *DB) pageStats(ctx context.Context) (count, size, free, mode int64, err error) {
	for _, p := range []struct {
		pragma string
		dst    *int64
	}{{"page_count", &count}, {"page_size", &size}, {"freelist_count", &free}, {"auto_vacuum", &mode}} {
		if err = db.ReadRow(ctx, `PRAGMA `+p.pragma).Scan(p.dst); err != nil {
			return 0, 0, 0, 0, readErr("the database's size", err)
		}
	}
	return count, size, free, mode, nil
}

// StorageStats implements store.Retention: rows by count, bytes from dbstat
// (every page of the table and its indexes: it reads the whole file, which
// is why it is an admin's call).
func (db *DB) StorageStats(ctx context.Context) (store.StorageStats, error) {
	tables, err := db.CountRows(ctx)
	if err != nil {
		return store.StorageStats{}, err
	}
	count, size, free, mode, err := db.pageStats(ctx)
	if err != nil {
		return store.StorageStats{}, err
	}
	st := store.StorageStats{Backend: "sqlite", DatabaseBytes: count * size, FreeBytes: free * size,
		AutoVacuum: autoVacuumModes[mode], Tables: tables}
	for i := range st.Tables {
		err := db.ReadRow(ctx, `SELECT COALESCE(SUM(pgsize), 0) FROM dbstat
			WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = ?)`, st.Tables[i].Name).Scan(&st.Tables[i].Bytes)
		if err != nil {
			return store.StorageStats{}, readErr("the table sizes", err)
		}
	}
	st.BytesPerExecution = store.BytesPerExecution(st.Tables)
	return st, nil
}

// ReclaimSpace implements store.Retention: PRAGMA incremental_vacuum of at
// most maxBytes of free pages, one write through the writer (a few
// milliseconds for a thousand pages). A database made before auto_vacuum
// was incremental (see docs/storage.md, `sluice retention compact`)
// keeps its free pages for new rows and gives nothing back.
func (db *DB) ReclaimSpace(ctx context.Context, maxBytes int64) (int64, error) {
	before, size, free, mode, err := db.pageStats(ctx)
	if err != nil || mode != 2 || free == 0 || maxBytes < size {
		return 0, err
	}
	// A pragma takes no bound value, and the writer keeps a prepared
	// statement per text: pages comes from the configured maxBytes alone
	// (not from free), so the texts stay few. Asking for more pages than
	// are free frees them all.
	pages := maxBytes / size
	stmt := fmt.Sprintf("PRAGMA incremental_vacuum(%d)", pages)
	if err := db.Write(ctx, func(tx *Tx) error { _, err := tx.Exec(stmt); return err }); err != nil {
		return 0, unavailable("the database's free pages cannot be given back", err)
	}
	after, _, _, _, err := db.pageStats(ctx)
	if err != nil {
		return 0, err
	}
	return max(before-after, 0) * size, nil
}

// Compact rewrites the database of the data directory dir with VACUUM, in
// auto_vacuum=INCREMENTAL mode: what a database made before that mode needs
// once for ReclaimSpace to give space back, and the way to shrink a file at
// once after a large prune. It takes the directory's lock, so the server
// must be stopped; it needs free disk space of about the database's size
// and takes a while on a large one (minutes per few GB). It returns the
// file's size before and after (WAL checkpointed).
func Compact(ctx context.Context, dir string) (before, after int64, err error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return 0, 0, fault.New(fault.Invalid, "%s: no %s there (is it a sluice data directory?)", dir, FileName)
	}
	lock, err := dirlock.Acquire(dir, time.Now())
	if err != nil {
		return 0, 0, err
	}
	defer lock.Release()
	// One connection: VACUUM cannot run in a transaction, so this is not
	// the writer's work; nothing else has the database while the lock is
	// held.
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return 0, 0, unavailable("the database cannot be opened", err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	size := func() (int64, error) {
		var count, pageSize int64
		if err := raw.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&count); err != nil {
			return 0, readErr("the database's size", err)
		}
		if err := raw.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
			return 0, readErr("the database's size", err)
		}
		return count * pageSize, nil
	}
	if before, err = size(); err != nil {
		return 0, 0, err
	}
	for _, stmt := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `PRAGMA auto_vacuum = INCREMENTAL`, `VACUUM`} {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
			return 0, 0, unavailable("the database cannot be compacted", err)
		}
	}
	after, err = size()
	return before, after, err
}
