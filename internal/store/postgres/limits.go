package postgres

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// TakeRate implements store.SharedLimits through sluice_rate_take (migration
// 0007): one round trip, one transaction under the account's advisory lock.
// A connection found dead is retried like a read: if the first attempt had in
// fact committed, the call is counted twice, which errs on the strict side.
func (db *DB) TakeRate(ctx context.Context, t store.RateTake) (store.RateTaken, error) {
	if err := store.CheckRateTake(t); err != nil {
		return store.RateTaken{}, err
	}
	n := len(t.Windows)
	kinds, starts, ends, limits := make([]string, n), make([]time.Time, n), make([]time.Time, n), make([]int64, n)
	for i, w := range t.Windows {
		kinds[i], starts[i], ends[i], limits[i] = w.Kind, w.Start, w.End, w.Limit
	}
	var (
		bkind           *string
		interval, burst int64
		ok              bool
		counts          []int64
		tat             *time.Time
	)
	if b := t.Bucket; b != nil {
		bkind, interval, burst = &b.Kind, b.Interval.Microseconds(), b.Burst
	}
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT taken, counts, tat FROM sluice_rate_take($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			t.AccountID, kinds, starts, ends, limits, t.N, bkind, interval, burst, t.At).Scan(&ok, &counts, &tat)
	})
	if err != nil {
		return store.RateTaken{}, writeErr("the rate counters", err)
	}
	var before time.Time
	if tat != nil {
		before = tat.UTC()
	}
	if len(counts) != n {
		counts = make([]int64, n) // an empty array comes back as such
	}
	return store.Settle(t, ok, counts, before), nil
}

// TakeSlot implements store.SharedLimits through sluice_slot_take.
func (db *DB) TakeSlot(ctx context.Context, s store.SlotTake) (int, bool, error) {
	if err := store.CheckSlotTake(s); err != nil {
		return 0, false, err
	}
	var (
		held  int
		taken bool
	)
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT held, taken FROM sluice_slot_take($1, $2, $3, $4, $5)`,
			s.AccountID, s.SlotID, s.Max, s.At, s.Expires).Scan(&held, &taken)
	})
	if err != nil {
		return 0, false, writeErr("the execution slot", err)
	}
	return held, taken, nil
}

// asyncCommit makes the one statement it starts commit without waiting for
// its WAL flush (set_config is local to the statement's own transaction):
// slots are renewed and released often, and a database crash that forgets
// the last few of these only leaves slots to expire.
const asyncCommit = `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))`

// RenewSlots implements store.SharedLimits in one round trip (idempotent,
// so a retry on a fresh connection is harmless).
func (db *DB) RenewSlots(ctx context.Context, ids []string, expires time.Time) error {
	if err := store.CheckSlotIDs(ids); err != nil || len(ids) == 0 {
		return err
	}
	err := db.Read(ctx, func(q Querier) error {
		_, err := q.Exec(ctx, asyncCommit+` UPDATE rate_slots SET expires_at = $2
			WHERE slot_id = ANY($1) AND EXISTS (SELECT 1 FROM async)`, ids, expires)
		return err
	})
	return writeErr("the execution slots", err)
}

// ReleaseSlot implements store.SharedLimits in one round trip.
func (db *DB) ReleaseSlot(ctx context.Context, id string) error {
	if err := store.CheckID("slot id", id); err != nil {
		return err
	}
	err := db.Read(ctx, func(q Querier) error {
		_, err := q.Exec(ctx, asyncCommit+` DELETE FROM rate_slots WHERE slot_id = $1 AND EXISTS (SELECT 1 FROM async)`, id)
		return err
	})
	return writeErr("the execution slot", err)
}

// PruneValues implements store.Values. Each scope's usage row is locked
// before its values are deleted, in the order PutValue takes them, so a
// prune and a put never wait on each other in a circle.
func (db *DB) PruneValues(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, func(tx Tx) error {
		n = 0
		rows, err := tx.Query(ctx, `SELECT u.area, u.account_id, u.scope FROM scoped_value_usage u
			WHERE EXISTS (SELECT 1 FROM scoped_values v WHERE v.area = u.area AND v.account_id = u.account_id
				AND v.scope = u.scope AND v.expires_at <= $1)
			ORDER BY 1, 2, 3 FOR UPDATE`, now)
		if err != nil {
			return err
		}
		var areas, accounts, scopes []string
		for rows.Next() {
			var a, acct, sc string
			if err := rows.Scan(&a, &acct, &sc); err != nil {
				rows.Close()
				return err
			}
			areas, accounts, scopes = append(areas, a), append(accounts, acct), append(scopes, sc)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(areas) == 0 {
			return err
		}
		err = tx.QueryRow(ctx, `WITH s AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) AS s(area, account_id, scope)),
			gone AS (DELETE FROM scoped_values v USING s
				WHERE v.area = s.area AND v.account_id = s.account_id AND v.scope = s.scope AND v.expires_at <= $1
				RETURNING v.area, v.account_id, v.scope),
			per AS (SELECT area, account_id, scope, COUNT(*) AS n FROM gone GROUP BY 1, 2, 3),
			upd AS (UPDATE scoped_value_usage u SET keys = u.keys - per.n FROM per
				WHERE u.area = per.area AND u.account_id = per.account_id AND u.scope = per.scope)
			SELECT COALESCE(SUM(n), 0) FROM per`, now, areas, accounts, scopes).Scan(&n)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM scoped_value_usage WHERE keys <= 0`)
		return err
	})
	if err != nil {
		return 0, writeErr("the stored values", err)
	}
	return n, nil
}
