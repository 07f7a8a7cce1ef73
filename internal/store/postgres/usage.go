package postgres

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

// AddDiscoveryUsage implements store.DiscoveryUsageStore in two statements
// whatever the number of rows: the first finds the rows' accounts (a missing
// one is named, the first in the rows' order, as SQLite's foreign key does),
// the second upserts every row, keeping the later time. The rows go in without
// repeats (ON CONFLICT may touch a row once per statement) and in key
// order, so concurrent calls lock shared rows in the same order.
func (db *DB) AddDiscoveryUsage(ctx context.Context, rows []store.DiscoveryUsage) (int, error) {
	if err := store.CheckDiscoveryUsageBatch(rows); err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, nil
	}
	var accounts []string // in the rows' order
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Account] {
			seen[r.Account] = true
			accounts = append(accounts, r.Account)
		}
	}
	keys := slices.Clone(rows)
	slices.SortFunc(keys, compareUsage)
	keys = slices.CompactFunc(keys, func(a, b store.DiscoveryUsage) bool { return compareUsage(a, b) == 0 })
	kinds, entries, terms, accts := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		kinds[i], entries[i], terms[i], accts[i] = k.Kind, k.EntryID, k.Term, k.Account
	}
	now := db.now()
	var added int
	err := db.Write(ctx, func(tx pgx.Tx) error {
		added = 0
		// The accounts there are locked as a foreign key check locks them,
		// so none goes before COMMIT.
		found, err := tx.Query(ctx, `SELECT id FROM accounts WHERE id = ANY($1) FOR KEY SHARE`, accounts)
		if err != nil {
			return err
		}
		there, err := pgx.CollectRows(found, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(there) < len(accounts) {
			for _, a := range accounts {
				if !slices.Contains(there, a) {
					return notFound("account", a)
				}
			}
		}
		res, err := tx.Query(ctx, `INSERT INTO discovery_usage (kind, entry_id, term, account_id, at)
			SELECT kind, entry_id, term, account_id, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(kind, entry_id, term, account_id)
			ON CONFLICT (kind, entry_id, term, account_id) DO UPDATE SET at = GREATEST(discovery_usage.at, excluded.at)
			RETURNING xmax = 0`, kinds, entries, terms, accts, now)
		if err != nil {
			return err
		}
		defer res.Close()
		for res.Next() {
			var inserted bool
			if err := res.Scan(&inserted); err != nil {
				return err
			}
			if inserted {
				added++
			}
		}
		res.Close() // before the next query on the connection
		if err := res.Err(); err != nil || added == 0 {
			return err
		}
		full, err := tx.Query(ctx, `SELECT account_id FROM discovery_usage WHERE account_id = ANY($1)
			GROUP BY account_id HAVING COUNT(*) > $2 ORDER BY account_id LIMIT 1`, accounts, store.MaxDiscoveryUsagePerAccount)
		if err != nil {
			return err
		}
		over, err := pgx.CollectRows(full, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(over) > 0 {
			return store.UsageFull(over[0])
		}
		return nil
	})
	if err != nil {
		return 0, writeErr("the discovery usage", err)
	}
	return added, nil
}

// compareUsage orders rows by their key, byte-wise like the table's "C"
// collation.
func compareUsage(a, b store.DiscoveryUsage) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.EntryID, b.EntryID),
		cmp.Compare(a.Term, b.Term), cmp.Compare(a.Account, b.Account))
}

// DiscoveryUsageCounts implements store.DiscoveryUsageStore.
func (db *DB) DiscoveryUsageCounts(ctx context.Context, kind, entryID string) ([]store.DiscoveryUsageCount, error) {
	if err := store.CheckDiscoveryUsageEntry(kind, entryID); err != nil {
		return nil, err
	}
	where, args := usageOfEntry(kind, entryID)
	out := []store.DiscoveryUsageCount{}
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT kind, entry_id, term, COUNT(*), MAX(at) FROM discovery_usage `+where+`
			GROUP BY kind, entry_id, term ORDER BY kind, entry_id, term`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c store.DiscoveryUsageCount
			if err := rows.Scan(&c.Kind, &c.EntryID, &c.Term, &c.Accounts, &c.Last); err != nil {
				return err
			}
			c.Last = utc(c.Last)
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
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
	return db.deleteUsage(ctx, `WHERE at < $1`, before)
}

// usageOfEntry is the WHERE clause of the rows of the entry (kind,
// entryID), empty for every row when both are empty.
func usageOfEntry(kind, entryID string) (string, []any) {
	if kind == "" {
		return "", nil
	}
	return `WHERE kind = $1 AND entry_id = $2`, []any{kind, entryID}
}

// deleteUsage deletes the rows where says and returns how many went.
func (db *DB) deleteUsage(ctx context.Context, where string, args ...any) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM discovery_usage `+where, args...)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, writeErr("the discovery usage", err)
	}
	return int(n), nil
}
