package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

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
		before = utc(*tat)
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

// CountSlots implements store.SharedLimits.
func (db *DB) CountSlots(ctx context.Context, accountID string, at time.Time) (int, error) {
	if err := store.CheckID("account id", accountID); err != nil {
		return 0, err
	}
	var n int
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT COUNT(*) FROM rate_slots WHERE account_id = $1 AND expires_at > $2`, accountID, at).Scan(&n)
	})
	if err != nil {
		return 0, readErr("the execution slots", err)
	}
	return n, nil
}

// PutValue implements store.Values. A new key takes a place in its scope's
// row of scoped_value_usage last, as PutKV does: the row lock serialises the
// scope's new keys across processes until COMMIT, so the bound is exact, and
// is held for one statement. A full scope drops its expired keys and looks
// again.
func (db *DB) PutValue(ctx context.Context, v store.Value) error {
	if err := store.CheckValue(v); err != nil {
		return err
	}
	now := db.now()
	var expires *time.Time
	if !v.ExpiresAt.IsZero() {
		expires = &v.ExpiresAt
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		var inserted bool
		err := tx.QueryRow(ctx, `INSERT INTO scoped_values (area, account_id, scope, key, value, expires_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (area, account_id, scope, key) DO UPDATE SET value = excluded.value,
				expires_at = excluded.expires_at, updated_at = excluded.updated_at
			RETURNING xmax = 0`,
			v.Area, v.AccountID, v.Scope, v.Key, string(v.Value), expires, now).Scan(&inserted)
		switch {
		case isForeignKey(err):
			return notFound("account", v.AccountID)
		case err != nil || !inserted:
			return err
		}
		// ON CONFLICT locks the usage row even when the WHERE refuses.
		var keys int
		err = tx.QueryRow(ctx, `INSERT INTO scoped_value_usage AS u (area, account_id, scope, keys) VALUES ($1, $2, $3, 1)
			ON CONFLICT (area, account_id, scope) DO UPDATE SET keys = u.keys + 1 WHERE u.keys < $4 RETURNING keys`,
			v.Area, v.AccountID, v.Scope, store.MaxValuesPerScope).Scan(&keys)
		if !isNoRows(err) {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM scoped_values WHERE area = $1 AND account_id = $2 AND scope = $3
			AND expires_at <= $4 AND key <> $5`, v.Area, v.AccountID, v.Scope, now, v.Key)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ValuesFull(v.Area)
		}
		_, err = tx.Exec(ctx, `UPDATE scoped_value_usage SET keys = keys - $4 + 1 WHERE area = $1 AND account_id = $2 AND scope = $3`,
			v.Area, v.AccountID, v.Scope, tag.RowsAffected())
		return err
	})
	return writeErr("the stored value", err)
}

// GetValue implements store.Values.
func (db *DB) GetValue(ctx context.Context, area, accountID, scope, key string) (json.RawMessage, bool, error) {
	if err := store.CheckValueRef(area, accountID, scope, key); err != nil {
		return nil, false, err
	}
	if !storable(area, accountID, scope, key) {
		return nil, false, nil
	}
	var v string
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT value FROM scoped_values WHERE area = $1 AND account_id = $2 AND scope = $3 AND key = $4
			AND (expires_at IS NULL OR expires_at > $5)`, area, accountID, scope, key, db.now()).Scan(&v)
	})
	if isNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, readErr("the stored value", err)
	}
	return json.RawMessage(v), true, nil
}

// PruneValues implements store.Values. Each scope's usage row is locked
// before its values are deleted, in the order PutValue takes them, so a
// prune and a put never wait on each other in a circle.
func (db *DB) PruneValues(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, func(tx pgx.Tx) error {
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

// ClaimSetting implements store.Settings.
func (db *DB) ClaimSetting(ctx context.Context, name string, value []byte) ([]byte, error) {
	if err := store.CheckSetting(name, value); err != nil {
		return nil, err
	}
	var stored []byte
	err := db.Write(ctx, func(tx pgx.Tx) error {
		stored = nil
		// DO UPDATE with no change returns the row that is there, so the
		// claim and the read are one statement.
		return tx.QueryRow(ctx, `INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET name = settings.name RETURNING value`, name, value, db.now()).Scan(&stored)
	})
	if err != nil {
		return nil, writeErr("the setting", err)
	}
	return stored, nil
}

// SwapSetting implements store.Settings.
func (db *DB) SwapSetting(ctx context.Context, name string, old, value []byte) error {
	if err := store.CheckSetting(name, value); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		var cur []byte
		err := tx.QueryRow(ctx, `SELECT value FROM settings WHERE name = $1 FOR UPDATE`, name).Scan(&cur)
		if isNoRows(err) {
			return notFound("setting", name)
		}
		if err != nil {
			return err
		}
		if string(cur) != string(old) {
			return store.SettingChanged(name)
		}
		_, err = tx.Exec(ctx, `UPDATE settings SET value = $2, updated_at = $3 WHERE name = $1`, name, value, db.now())
		return err
	})
	return writeErr("the setting", err)
}
