package sqlite

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// AddDiscoveryUsage implements store.DiscoveryUsageStore. Each row is
// inserted unless it is there, in which case its time moves forward; a row
// whose account does not exist undoes the whole call.
func (db *DB) AddDiscoveryUsage(ctx context.Context, rows []store.DiscoveryUsage) (int, error) {
	if err := store.CheckDiscoveryUsageBatch(rows); err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, nil
	}
	now := micros(db.clock.Now())
	var added int
	err := db.Write(ctx, func(tx *Tx) error {
		added = 0
		for _, r := range rows {
			res, err := tx.Exec(`INSERT INTO discovery_usage (kind, entry_id, term, account_id, at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (kind, entry_id, term, account_id) DO NOTHING`, r.Kind, r.EntryID, r.Term, r.Account, now)
			if isForeignKey(err) {
				return notFound("account", r.Account)
			}
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				added++
				continue
			}
			if _, err := tx.Exec(`UPDATE discovery_usage SET at = MAX(at, ?) WHERE kind = ? AND entry_id = ? AND term = ? AND account_id = ?`,
				now, r.Kind, r.EntryID, r.Term, r.Account); err != nil {
				return err
			}
		}
		if added == 0 {
			return nil
		}
		checked := map[string]bool{}
		for _, r := range rows {
			if checked[r.Account] {
				continue
			}
			checked[r.Account] = true
			var n int
			if err := tx.QueryRow(`SELECT COUNT(*) FROM discovery_usage WHERE account_id = ?`, r.Account).Scan(&n); err != nil {
				return err
			}
			if n > store.MaxDiscoveryUsagePerAccount {
				return store.UsageFull(r.Account)
			}
		}
		return nil
	})
	if err != nil {
		return 0, writeErr("the discovery usage", err)
	}
	return added, nil
}

// DiscoveryUsageCounts implements store.DiscoveryUsageStore.
func (db *DB) DiscoveryUsageCounts(ctx context.Context, kind, entryID string) ([]store.DiscoveryUsageCount, error) {
	if err := store.CheckDiscoveryUsageEntry(kind, entryID); err != nil {
		return nil, err
	}
	where, args := usageOfEntry(kind, entryID)
	rows, err := db.Read(ctx, `SELECT kind, entry_id, term, COUNT(*), MAX(at) FROM discovery_usage `+where+`
		GROUP BY kind, entry_id, term ORDER BY kind, entry_id, term`, args...)
	if err != nil {
		return nil, readErr("the discovery usage", err)
	}
	defer rows.Close()
	out := []store.DiscoveryUsageCount{}
	for rows.Next() {
		var c store.DiscoveryUsageCount
		var last int64
		if err := rows.Scan(&c.Kind, &c.EntryID, &c.Term, &c.Accounts, &last); err != nil {
			return nil, readErr("the discovery usage", err)
		}
		c.Last = fromMicros(last)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("the discovery usage", err)
	}
	return out, nil
}

// DeleteDiscoveryUsage implements store.DiscoveryUsageStore.
func (db *DB) DeleteDiscoveryUsage(ctx context.Context, kind, entryID string) (int, error) {
	if err := store.CheckDiscoveryUsageEntry(kind, entryID); err != nil {
		return 0, err
	}
	where, args := usageOfEntry(kind, entryID)
	return db.deleteUsage(ctx, where, args...)
}

// PruneDiscoveryUsage implements store.DiscoveryUsageStore.
func (db *DB) PruneDiscoveryUsage(ctx context.Context, before time.Time) (int, error) {
	return db.deleteUsage(ctx, `WHERE at < ?`, micros(before))
}

// usageOfEntry is the WHERE clause of the rows of the entry (kind,
// entryID), empty for every row when both are empty.
func usageOfEntry(kind, entryID string) (string, []any) {
	if kind == "" {
		return "", nil
	}
	return `WHERE kind = ? AND entry_id = ?`, []any{kind, entryID}
}

// deleteUsage deletes the rows where says and returns how many went.
func (db *DB) deleteUsage(ctx context.Context, where string, args ...any) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM discovery_usage `+where, args...)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, writeErr("the discovery usage", err)
	}
	return int(n), nil
}
