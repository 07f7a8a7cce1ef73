package sqlite

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/store"
)

// PutKV implements store.KV.
func (db *DB) PutKV(ctx context.Context, accountID, key string, value json.RawMessage) error {
	if err := store.CheckKV(accountID, key, value, true); err != nil {
		return err
	}
	now := micros(db.clock.Now())
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE kv SET value = ?, updated_at = ? WHERE account_id = ? AND key = ?`, string(value), now, accountID, key)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		var count int
		err = tx.QueryRow(`SELECT keys FROM kv_usage WHERE account_id = ?`, accountID).Scan(&count)
		if err != nil && !isNoRows(err) {
			return err
		}
		if count >= store.MaxKVKeysPerAccount {
			return store.KVFull()
		}
		_, err = tx.Exec(`INSERT INTO kv (account_id, key, value, updated_at) VALUES (?, ?, ?, ?)`, accountID, key, string(value), now)
		if isForeignKey(err) {
			return notFound("account", accountID)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO kv_usage (account_id, keys) VALUES (?, 1)
			ON CONFLICT (account_id) DO UPDATE SET keys = keys + 1`, accountID)
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
	err := db.ReadRow(ctx, `SELECT value FROM kv WHERE account_id = ? AND key = ?`, accountID, key).Scan(&v)
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
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM kv WHERE account_id = ? AND key = ?`, accountID, key)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		_, err = tx.Exec(`UPDATE kv_usage SET keys = keys - 1 WHERE account_id = ?`, accountID)
		return err
	})
	return writeErr("the stored value", err)
}
