package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

// PutKV implements store.KV. The value is upserted first; only a key that
// was new then takes a slot in kv_usage, whose row lock serialises the
// account's new keys across processes until COMMIT, so the bound is exact.
// An account that is full rolls the insert back.
func (db *DB) PutKV(ctx context.Context, accountID, key string, value json.RawMessage) error {
	if err := store.CheckKV(accountID, key, value, true); err != nil {
		return err
	}
	now := db.now()
	err := db.Write(ctx, func(tx pgx.Tx) error {
		var inserted bool
		err := tx.QueryRow(ctx, `INSERT INTO kv (account_id, key, value, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (account_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
			RETURNING xmax = 0`, accountID, key, string(value), now).Scan(&inserted)
		switch {
		case isForeignKey(err):
			return notFound("account", accountID)
		case err != nil || !inserted:
			return err
		}
		var keys int
		err = tx.QueryRow(ctx, `INSERT INTO kv_usage (account_id, keys) VALUES ($1, 1)
			ON CONFLICT (account_id) DO UPDATE SET keys = kv_usage.keys + 1 WHERE kv_usage.keys < $2
			RETURNING keys`, accountID, store.MaxKVKeysPerAccount).Scan(&keys)
		if isNoRows(err) {
			return store.KVFull()
		}
		return err
	})
	return writeErr("the stored value", err)
}

// GetKV implements store.KV.
func (db *DB) GetKV(ctx context.Context, accountID, key string) (json.RawMessage, bool, error) {
	if err := store.CheckKV(accountID, key, nil, false); err != nil {
		return nil, false, err
	}
	var v string
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT value FROM kv WHERE account_id = $1 AND key = $2`, accountID, key).Scan(&v)
	})
	if isNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, readErr("the stored value", err)
	}
	return json.RawMessage(v), true, nil
}

// DeleteKV implements store.KV.
func (db *DB) DeleteKV(ctx context.Context, accountID, key string) error {
	if err := store.CheckKV(accountID, key, nil, false); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM kv WHERE account_id = $1 AND key = $2`, accountID, key)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE kv_usage SET keys = keys - 1 WHERE account_id = $1`, accountID)
		return err
	})
	return writeErr("the stored value", err)
}
