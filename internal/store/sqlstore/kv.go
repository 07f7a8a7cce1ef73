package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/store"
)

// PutKV implements store.KV. The value is upserted first; only a key that
// was new then takes a slot in kv_usage, whose row lock on PostgreSQL
// serialises the account's new keys across processes until COMMIT, so the
// bound is exact. An account that is full rolls the insert back.
func (s *Store) PutKV(ctx context.Context, accountID, key string, value json.RawMessage) error {
	if err := store.CheckKV(accountID, key, value, true); err != nil {
		return err
	}
	now := s.b.Time(s.b.Now())
	err := s.b.Write(ctx, func(tx Querier) error {
		inserted, err := s.upsert(ctx, tx, `kv (account_id, key, value, updated_at)`, `(account_id, key)`,
			`value = excluded.value, updated_at = excluded.updated_at`, []any{accountID, key, string(value), now},
			`kv SET value = ?, updated_at = ? WHERE account_id = ? AND key = ?`, []any{string(value), now, accountID, key})
		switch {
		case s.b.IsForeignKey(err):
			return notFound("account", accountID)
		case err != nil || !inserted:
			return err
		}
		n, err := tx.Exec(ctx, `INSERT INTO kv_usage (account_id, keys) VALUES (?, 1)
			ON CONFLICT (account_id) DO UPDATE SET keys = kv_usage.keys + 1 WHERE kv_usage.keys < ?`,
			accountID, store.MaxKVKeysPerAccount)
		if err == nil && n == 0 {
			return store.KVFull()
		}
		return err
	})
	return s.b.WriteErr("the stored value", err)
}

// GetKV implements store.KV.
func (s *Store) GetKV(ctx context.Context, accountID, key string) (json.RawMessage, bool, error) {
	if err := store.CheckKV(accountID, key, nil, false); err != nil {
		return nil, false, err
	}
	var v string
	err := s.b.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT value FROM kv WHERE account_id = ? AND key = ?`, accountID, key).Scan(&v)
	})
	if s.b.IsNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.b.ReadErr("the stored value", err)
	}
	return json.RawMessage(v), true, nil
}

// DeleteKV implements store.KV.
func (s *Store) DeleteKV(ctx context.Context, accountID, key string) error {
	if err := store.CheckKV(accountID, key, nil, false); err != nil {
		return err
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		n, err := tx.Exec(ctx, `DELETE FROM kv WHERE account_id = ? AND key = ?`, accountID, key)
		if err != nil || n == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE kv_usage SET keys = keys - 1 WHERE account_id = ?`, accountID)
		return err
	})
	return s.b.WriteErr("the stored value", err)
}
