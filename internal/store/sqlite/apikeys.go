package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

const keyCols = `k.id, k.account_id, k.prefix, k.created_at, k.expires_at, k.revoked_at, k.last_used_at`

// keyRow holds the columns of keyCols as scanned.
type keyRow struct {
	k                      store.APIKey
	created                int64
	expires, revoked, used sql.NullInt64
}

func (r *keyRow) targets() []any {
	return []any{&r.k.ID, &r.k.AccountID, &r.k.Prefix, &r.created, &r.expires, &r.revoked, &r.used}
}

func (r *keyRow) key() store.APIKey {
	k := r.k
	k.CreatedAt = fromMicros(r.created)
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = timePtr(r.expires), timePtr(r.revoked), timePtr(r.used)
	return k
}

// AddAPIKey implements store.APIKeys.
func (db *DB) AddAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error) {
	if err := store.CheckAPIKey(k); err != nil {
		return store.APIKey{}, err
	}
	k.CreatedAt = fromMicros(micros(db.clock.Now()))
	k.RevokedAt, k.LastUsedAt = nil, nil
	if k.ExpiresAt != nil {
		t := fromMicros(micros(*k.ExpiresAt))
		k.ExpiresAt = &t
	}
	err := db.Write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM api_keys WHERE account_id = ?`, k.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= store.MaxAPIKeysPerAccount {
			return fault.New(fault.Invalid, "account %q already holds %d keys, the limit", k.AccountID, n).
				WithSuggestions("Revoke and delete keys that are no longer used")
		}
		_, err := tx.Exec(`INSERT INTO api_keys (id, account_id, hash, prefix, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
			k.ID, k.AccountID, k.Hash, k.Prefix, micros(k.CreatedAt), nullMicros(k.ExpiresAt))
		switch {
		case isForeignKey(err):
			return notFound("account", k.AccountID)
		case isUnique(err):
			// Which of id and hash clashed is not said: a hash clash is
			// astronomically unlikely unless the caller reused a key.
			return fault.New(fault.Conflict, "key %q or its secret is already in use", k.ID).WithDetail("keyId", k.ID)
		}
		return err
	})
	if err != nil {
		return store.APIKey{}, writeErr("the API key", err)
	}
	return k, nil
}

// FindAPIKey implements store.APIKeys.
func (db *DB) FindAPIKey(ctx context.Context, hash []byte) (store.APIKey, store.Account, error) {
	if err := store.CheckKeyHash(hash); err != nil {
		return store.APIKey{}, store.Account{}, err
	}
	return db.keyWithAccount(ctx, `k.hash = ?`, hash)
}

// GetAPIKey implements store.APIKeys.
func (db *DB) GetAPIKey(ctx context.Context, id string) (store.APIKey, store.Account, error) {
	return db.keyWithAccount(ctx, `k.id = ?`, id)
}

// keyWithAccount reads the one key matching where (hash included) and its account.
func (db *DB) keyWithAccount(ctx context.Context, where string, arg any) (store.APIKey, store.Account, error) {
	var (
		kr keyRow
		ar accountRow
	)
	err := db.ReadRow(ctx, `SELECT `+keyCols+`, k.hash, `+prefixed("a.", accountCols)+`
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE `+where, arg).
		Scan(append(append(kr.targets(), &kr.k.Hash), ar.targets()...)...)
	if isNoRows(err) {
		return store.APIKey{}, store.Account{}, fault.New(fault.NotFound, "no such API key")
	}
	if err != nil {
		return store.APIKey{}, store.Account{}, readErr("the API key", err)
	}
	a, err := ar.account()
	if err != nil {
		return store.APIKey{}, store.Account{}, err
	}
	return kr.key(), a, nil
}

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	rows, err := db.Read(ctx, `SELECT `+keyCols+` FROM api_keys k WHERE k.account_id = ? ORDER BY k.created_at, k.id LIMIT ?`,
		accountID, store.MaxAPIKeysPerAccount)
	if err != nil {
		return nil, readErr("API keys", err)
	}
	defer rows.Close()
	var out []store.APIKey
	for rows.Next() {
		var r keyRow
		if err := rows.Scan(r.targets()...); err != nil {
			return nil, readErr("API keys", err)
		}
		out = append(out, r.key())
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("API keys", err)
	}
	return out, nil
}

// RevokeAPIKey implements store.APIKeys.
func (db *DB) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	now := micros(db.clock.Now())
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = ?`, now, keyID, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("API key", keyID)
		}
		return nil
	})
	return writeErr("the API key", err)
}

// MarkAPIKeysUsed implements store.APIKeys.
func (db *DB) MarkAPIKeysUsed(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	if len(used) > store.MaxAPIKeysMarked {
		return fault.New(fault.Invalid, "%d keys marked at once, over the limit of %d", len(used), store.MaxAPIKeysMarked)
	}
	err := db.Write(ctx, func(tx *Tx) error {
		for id, at := range used {
			if _, err := tx.Exec(`UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?`, micros(at), id); err != nil {
				return err
			}
		}
		return nil
	})
	return writeErr("API key use", err)
}
