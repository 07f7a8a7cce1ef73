package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

const usageCols = `discovery_usage (kind, entry_id, term, account_id, at)`

// AddDiscoveryUsage implements store.DiscoveryUsageStore: the rows'
// accounts are found first (a missing one is named, the first in the rows'
// order, and the ones there are kept from being deleted until COMMIT), then
// every row is upserted keeping the later time, and last the accounts that
// gained rows are checked against their bound. The rows go in without
// repeats (ON CONFLICT may touch a row once a statement) and in key order,
// so concurrent calls lock shared rows in the same order.
func (s *Store) AddDiscoveryUsage(ctx context.Context, rows []store.DiscoveryUsage) (int, error) {
	if err := store.CheckDiscoveryUsageBatch(rows); err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, nil
	}
	var accounts []string // in the rows' order
	for _, r := range rows {
		if !slices.Contains(accounts, r.Account) {
			accounts = append(accounts, r.Account)
		}
	}
	keys := slices.Clone(rows)
	slices.SortFunc(keys, compareUsage)
	keys = slices.CompactFunc(keys, func(a, b store.DiscoveryUsage) bool { return compareUsage(a, b) == 0 })
	now := s.b.Time(s.b.Now())
	var added int
	err := s.b.Write(ctx, func(tx Querier) error {
		var f filter
		in(&f, `id`, accounts)
		there, err := queryAll(ctx, tx, nil, `SELECT id FROM accounts`+f.where()+s.b.KeyShareLock(), f.args, scanOne[string])
		if err != nil {
			return err
		}
		for _, a := range accounts {
			if !slices.Contains(there, a) {
				return notFound("account", a)
			}
		}
		if added, err = s.upsertUsage(ctx, tx, keys, now); err != nil || added == 0 {
			return err
		}
		f = filter{}
		in(&f, `account_id`, accounts)
		over, err := queryAll(ctx, tx, nil, `SELECT account_id FROM discovery_usage`+f.where()+`
			GROUP BY account_id HAVING COUNT(*) > ? ORDER BY account_id LIMIT 1`, append(f.args, store.MaxDiscoveryUsagePerAccount), scanOne[string])
		if err != nil {
			return err
		}
		if len(over) > 0 {
			return store.UsageFull(over[0])
		}
		return nil
	})
	if err != nil {
		return 0, s.b.WriteErr("the discovery usage", err)
	}
	return added, nil
}

// upsertUsage writes keys at now and says how many were new: one statement
// over the dialect's Unnest where it tells inserts from updates, else an
// upsert a row.
func (s *Store) upsertUsage(ctx context.Context, tx Querier, keys []store.DiscoveryUsage, now any) (int, error) {
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{k.Kind, k.EntryID, k.Term, k.Account, now}
	}
	conflict := `(kind, entry_id, term, account_id)`
	set := `at = ` + s.b.Greatest() + `(discovery_usage.at, excluded.at)`
	if from, args, ok := s.b.Unnest([]string{"text", "text", "text", "text", "timestamptz"}, rows); ok && s.b.Inserted() != "" {
		inserted, err := queryAll(ctx, tx, nil, `INSERT INTO `+usageCols+` `+from+` ON CONFLICT `+conflict+` DO UPDATE SET `+set+
			` RETURNING `+s.b.Inserted(), args, scanOne[bool])
		return count(inserted), err
	}
	added := 0
	for i, k := range keys {
		inserted, err := s.upsert(ctx, tx, usageCols, conflict, set, rows[i],
			`discovery_usage SET at = `+s.b.Greatest()+`(at, ?) WHERE kind = ? AND entry_id = ? AND term = ? AND account_id = ?`,
			[]any{now, k.Kind, k.EntryID, k.Term, k.Account})
		if err != nil {
			return 0, err
		}
		if inserted {
			added++
		}
	}
	return added, nil
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// compareUsage orders rows by their key, byte-wise like the table's "C"
// collation.
func compareUsage(a, b store.DiscoveryUsage) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.EntryID, b.EntryID),
		cmp.Compare(a.Term, b.Term), cmp.Compare(a.Account, b.Account))
}

// DiscoveryUsageCounts implements store.DiscoveryUsageStore.
func (s *Store) DiscoveryUsageCounts(ctx context.Context, kind, entryID string) ([]store.DiscoveryUsageCount, error) {
	if err := store.CheckDiscoveryUsageEntry(kind, entryID); err != nil {
		return nil, err
	}
	f := usageOfEntry(kind, entryID)
	return collect(ctx, s, "the discovery usage", []store.DiscoveryUsageCount{}, func(row Row) (c store.DiscoveryUsageCount, err error) {
		err = row.Scan(&c.Kind, &c.EntryID, &c.Term, &c.Accounts, s.b.ScanTime(&c.Last))
		return c, err
	}, `SELECT kind, entry_id, term, COUNT(*), MAX(at) FROM discovery_usage`+f.where()+`
		GROUP BY kind, entry_id, term ORDER BY kind, entry_id, term`, f.args...)
}

// DeleteDiscoveryUsage implements store.DiscoveryUsageStore.
func (s *Store) DeleteDiscoveryUsage(ctx context.Context, kind, entryID string) (int, error) {
	if err := store.CheckDiscoveryUsageEntry(kind, entryID); err != nil {
		return 0, err
	}
	return s.deleteUsage(ctx, usageOfEntry(kind, entryID))
}

// PruneDiscoveryUsage implements store.DiscoveryUsageStore.
func (s *Store) PruneDiscoveryUsage(ctx context.Context, before time.Time) (int, error) {
	var f filter
	f.add(`at < ?`, s.b.Time(before))
	return s.deleteUsage(ctx, f)
}

// usageOfEntry is the filter of the rows of the entry (kind, entryID),
// none for every row when both are empty.
func usageOfEntry(kind, entryID string) filter {
	var f filter
	if kind != "" {
		f.add(`kind = ? AND entry_id = ?`, kind, entryID)
	}
	return f
}

// deleteUsage deletes the rows f keeps and returns how many went.
func (s *Store) deleteUsage(ctx context.Context, f filter) (int, error) {
	var n int64
	err := s.b.Write(ctx, func(tx Querier) error {
		var err error
		n, err = tx.Exec(ctx, `DELETE FROM discovery_usage`+f.where(), f.args...)
		return err
	})
	if err != nil {
		return 0, s.b.WriteErr("the discovery usage", err)
	}
	return int(n), nil
}
