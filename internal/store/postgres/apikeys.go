package postgres

import (
	"context"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

const keyCols = `k.id, k.account_id, k.prefix, k.created_at, k.expires_at, k.revoked_at, k.last_used_at`

func keyTargets(k *store.APIKey) []any {
	return []any{&k.ID, &k.AccountID, &k.Prefix, &k.CreatedAt, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt}
}

func keyUTC(k store.APIKey) store.APIKey {
	k.CreatedAt = utc(k.CreatedAt)
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = utcPtr(k.ExpiresAt), utcPtr(k.RevokedAt), utcPtr(k.LastUsedAt)
	return k
}

// AddAPIKey implements store.APIKeys. The account's row lock makes the count
// and the insert one step, so the per-account bound holds under concurrency.
func (db *DB) AddAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error) {
	if err := store.CheckAPIKey(k); err != nil {
		return store.APIKey{}, err
	}
	k.CreatedAt = db.now()
	k.RevokedAt, k.LastUsedAt = nil, nil
	k.ExpiresAt = microPtr(k.ExpiresAt)
	err := db.Write(ctx, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, k.AccountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM api_keys WHERE account_id = $1`, k.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= store.MaxAPIKeysPerAccount {
			return fault.New(fault.Invalid, "account %q already holds %d keys, the limit", k.AccountID, n).
				WithSuggestions("Revoke and delete keys that are no longer used")
		}
		_, err := tx.Exec(ctx, `INSERT INTO api_keys (id, account_id, hash, prefix, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			k.ID, k.AccountID, k.Hash, k.Prefix, k.CreatedAt, k.ExpiresAt)
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
	return db.keyWithAccount(ctx, `k.hash = $1`, hash)
}

// GetAPIKey implements store.APIKeys.
func (db *DB) GetAPIKey(ctx context.Context, id string) (store.APIKey, store.Account, error) {
	if !storable(id) {
		return store.APIKey{}, store.Account{}, fault.New(fault.NotFound, "no such API key")
	}
	return db.keyWithAccount(ctx, `k.id = $1`, id)
}

// keyWithAccount reads the one key matching where (hash included) and its
// account, in one statement.
func (db *DB) keyWithAccount(ctx context.Context, where string, arg any) (store.APIKey, store.Account, error) {
	var (
		k  store.APIKey
		ar accountRow
	)
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT `+keyCols+`, k.hash, a.id, a.name, a.permissions, a.limits, a.disabled, a.created_at, a.updated_at
			FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE `+where, arg).
			Scan(append(append(keyTargets(&k), &k.Hash), ar.targets()...)...)
	})
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
	return keyUTC(k), a, nil
}

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	if !storable(accountID) {
		return nil, nil
	}
	var out []store.APIKey
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT `+keyCols+` FROM api_keys k WHERE k.account_id = $1 ORDER BY k.created_at, k.id LIMIT $2`,
			accountID, store.MaxAPIKeysPerAccount)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k store.APIKey
			if err := rows.Scan(keyTargets(&k)...); err != nil {
				return err
			}
			out = append(out, keyUTC(k))
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("API keys", err)
	}
	return out, nil
}

// RevokeAPIKey implements store.APIKeys.
func (db *DB) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	if !storable(accountID, keyID) {
		return notFound("API key", keyID)
	}
	now := db.now()
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 AND account_id = $3`, now, keyID, accountID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("API key", keyID)
		}
		return nil
	})
	return writeErr("the API key", err)
}

// MarkAPIKeysUsed implements store.APIKeys: one statement over arrays. Ids
// go in sorted order so two concurrent marks lock shared keys in the same
// order.
func (db *DB) MarkAPIKeysUsed(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	if len(used) > store.MaxAPIKeysMarked {
		return fault.New(fault.Invalid, "%d keys marked at once, over the limit of %d", len(used), store.MaxAPIKeysMarked)
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		if storable(id) { // any other id matches no key: skipped, as unknown ids are
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	times := make([]time.Time, len(ids))
	for i, id := range ids {
		times[i] = used[id]
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.at)
			FROM (SELECT * FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) ORDER BY id) u
			WHERE k.id = u.id`, ids, times)
		return err
	})
	return writeErr("API key use", err)
}
