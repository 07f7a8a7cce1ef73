package sqlstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// PutValue implements store.Values, as PutKV: the value is upserted first;
// only a key that was new then takes a place in its scope's row of
// scoped_value_usage, whose row lock on PostgreSQL serialises the scope's
// new keys across processes until COMMIT, so the bound is exact. A full
// scope drops its expired keys and looks again; still full, the insert is
// rolled back.
func (s *Store) PutValue(ctx context.Context, v store.Value) error {
	if err := store.CheckValue(v); err != nil {
		return err
	}
	now := s.b.Time(s.b.Now())
	var expires *time.Time
	if !v.ExpiresAt.IsZero() {
		expires = &v.ExpiresAt
	}
	exp := s.b.NullTime(expires)
	err := s.b.Write(ctx, func(tx Querier) error {
		inserted, err := s.upsert(ctx, tx, `scoped_values (area, account_id, scope, key, value, expires_at, updated_at)`,
			`(area, account_id, scope, key)`, `value = excluded.value, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
			[]any{v.Area, v.AccountID, v.Scope, v.Key, string(v.Value), exp, now},
			`scoped_values SET value = ?, expires_at = ?, updated_at = ? WHERE area = ? AND account_id = ? AND scope = ? AND key = ?`,
			[]any{string(v.Value), exp, now, v.Area, v.AccountID, v.Scope, v.Key})
		switch {
		case s.b.IsForeignKey(err):
			return notFound("account", v.AccountID)
		case err != nil || !inserted:
			return err
		}
		// ON CONFLICT locks the usage row even when the WHERE refuses.
		n, err := tx.Exec(ctx, `INSERT INTO scoped_value_usage (area, account_id, scope, keys) VALUES (?, ?, ?, 1)
			ON CONFLICT (area, account_id, scope) DO UPDATE SET keys = scoped_value_usage.keys + 1
			WHERE scoped_value_usage.keys < ?`, v.Area, v.AccountID, v.Scope, store.MaxValuesPerScope)
		if err != nil || n == 1 {
			return err
		}
		gone, err := tx.Exec(ctx, `DELETE FROM scoped_values WHERE area = ? AND account_id = ? AND scope = ?
			AND expires_at <= ? AND key <> ?`, v.Area, v.AccountID, v.Scope, now, v.Key)
		if err != nil {
			return err
		}
		if gone == 0 {
			return store.ValuesFull(v.Area)
		}
		_, err = tx.Exec(ctx, `UPDATE scoped_value_usage SET keys = keys - ? + 1 WHERE area = ? AND account_id = ? AND scope = ?`,
			gone, v.Area, v.AccountID, v.Scope)
		return err
	})
	return s.b.WriteErr("the stored value", err)
}

// GetValue implements store.Values.
func (s *Store) GetValue(ctx context.Context, area, accountID, scope, key string) (json.RawMessage, bool, error) {
	if err := store.CheckValueRef(area, accountID, scope, key); err != nil {
		return nil, false, err
	}
	if !s.b.Storable(area, accountID, scope, key) {
		return nil, false, nil
	}
	var v string
	err := s.b.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT value FROM scoped_values WHERE area = ? AND account_id = ? AND scope = ? AND key = ?
			AND (expires_at IS NULL OR expires_at > ?)`, area, accountID, scope, key, s.b.Time(s.b.Now())).Scan(&v)
	})
	if s.b.IsNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.b.ReadErr("the stored value", err)
	}
	return json.RawMessage(v), true, nil
}

// CountSlots implements store.SharedLimits.
func (s *Store) CountSlots(ctx context.Context, accountID string, at time.Time) (int, error) {
	if err := store.CheckID("account id", accountID); err != nil {
		return 0, err
	}
	var n int
	err := s.b.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT COUNT(*) FROM rate_slots WHERE account_id = ? AND expires_at > ?`, accountID, s.b.Time(at)).Scan(&n)
	})
	if err != nil {
		return 0, s.b.ReadErr("the execution slots", err)
	}
	return n, nil
}
