package postgres

import (
	"context"
	"strings"

	"github.com/sluicehq/sluice/internal/store"
)

// StorageStats implements store.Retention: rows by count, bytes by
// pg_total_relation_size (the table, its indexes and its TOAST).
func (db *DB) StorageStats(ctx context.Context) (store.StorageStats, error) {
	tables, err := db.CountRows(ctx)
	if err != nil {
		return store.StorageStats{}, err
	}
	st := store.StorageStats{Backend: "postgres", Tables: tables}
	err = db.Read(ctx, func(q Querier) error {
		if err := q.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&st.DatabaseBytes); err != nil {
			return err
		}
		for i := range st.Tables {
			if err := q.QueryRow(ctx, `SELECT pg_total_relation_size($1::regclass)`, st.Tables[i].Name).Scan(&st.Tables[i].Bytes); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.StorageStats{}, readErr("the table sizes", err)
	}
	st.BytesPerExecution = store.BytesPerExecution(st.Tables)
	return st, nil
}

// ReclaimSpace implements store.Retention with a plain VACUUM (never FULL,
// which would lock the tables) of the tables pruning deletes from: the
// space of deleted rows becomes reusable now rather than when autovacuum
// gets to it, and empty pages at a table's end go back to the file system.
// maxBytes does not apply: VACUUM takes no lock writers wait for. Several
// gateways vacuuming at once is harmless: the later ones find little to do.
func (db *DB) ReclaimSpace(ctx context.Context, _ int64) (int64, error) {
	size := func() (n int64, err error) {
		err = db.Read(ctx, func(q Querier) error {
			return q.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
		})
		return n, err
	}
	before, err := size()
	if err != nil {
		return 0, readErr("the database's size", err)
	}
	// VACUUM cannot run inside a transaction: it goes on a pooled
	// connection of its own.
	err = db.Read(ctx, func(q Querier) error {
		_, err := q.Exec(ctx, `VACUUM `+strings.Join(store.RunTables, ", "))
		return err
	})
	if err != nil {
		return 0, writeErr("the vacuum of the pruned tables", err)
	}
	after, err := size()
	if err != nil {
		return 0, readErr("the database's size", err)
	}
	return max(before-after, 0), nil
}
