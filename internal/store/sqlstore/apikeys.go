package sqlstore

import (
	"context"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

const keyCols = `k.id, k.account_id, k.prefix, k.created_at, k.expires_at, k.revoked_at, k.last_used_at`

func keyTargets(d Dialect, k *store.APIKey) []any {
	return []any{&k.ID, &k.AccountID, &k.Prefix, d.ScanTime(&k.CreatedAt),
		d.ScanNullTime(&k.ExpiresAt), d.ScanNullTime(&k.RevokedAt), d.ScanNullTime(&k.LastUsedAt)}
}

// AddAPIKey implements store.APIKeys. lockAccount makes the count and the
// insert one step, so the per-account bound holds under concurrency.
func (s *Store) AddAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error) {
	if err := store.CheckAPIKey(k); err != nil {
		return store.APIKey{}, err
	}
	k.CreatedAt = s.b.Now()
	k.RevokedAt, k.LastUsedAt = nil, nil
	if k.ExpiresAt != nil {
		t := k.ExpiresAt.UTC().Truncate(time.Microsecond)
		k.ExpiresAt = &t
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		if err := s.lockAccount(ctx, tx, k.AccountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM api_keys WHERE account_id = ?`, k.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= store.MaxAPIKeysPerAccount {
			return fault.New(fault.Invalid, "account %q already holds %d keys, the limit", k.AccountID, n).
				WithSuggestions("Revoke and delete keys that are no longer used")
		}
		_, err := tx.Exec(ctx, `INSERT INTO api_keys (id, account_id, hash, prefix, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
			k.ID, k.AccountID, k.Hash, k.Prefix, s.b.Time(k.CreatedAt), s.b.NullTime(k.ExpiresAt))
		switch {
		case s.b.IsForeignKey(err):
			return notFound("account", k.AccountID)
		case s.b.IsUnique(err):
			// Which of id and hash clashed is not said: a hash clash is
			// astronomically unlikely unless the caller reused a key.
			return fault.New(fault.Conflict, "key %q or its secret is already in use", k.ID).WithDetail("keyId", k.ID)
		}
		return err
	})
	if err != nil {
		return store.APIKey{}, s.b.WriteErr("the API key", err)
	}
	return k, nil
}

// FindAPIKey implements store.APIKeys.
func (s *Store) FindAPIKey(ctx context.Context, hash []byte) (store.APIKey, store.Account, error) {
	if err := store.CheckKeyHash(hash); err != nil {
		return store.APIKey{}, store.Account{}, err
	}
	return s.keyWithAccount(ctx, `k.hash = ?`, hash)
}

// GetAPIKey implements store.APIKeys.
func (s *Store) GetAPIKey(ctx context.Context, id string) (store.APIKey, store.Account, error) {
	if !s.b.Storable(id) {
		return store.APIKey{}, store.Account{}, fault.New(fault.NotFound, "no such API key")
	}
	return s.keyWithAccount(ctx, `k.id = ?`, id)
}

// keyWithAccount reads the one key matching where (hash included) and its
// account, in one statement.
func (s *Store) keyWithAccount(ctx context.Context, where string, arg any) (store.APIKey, store.Account, error) {
	var (
		k  store.APIKey
		ar accountRow
	)
	err := s.b.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT `+keyCols+`, k.hash, `+prefixed("a.", accountCols)+`
			FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE `+where, arg).
			Scan(append(append(keyTargets(s.b, &k), &k.Hash), ar.targets(s.b)...)...)
	})
	if s.b.IsNoRows(err) {
		return store.APIKey{}, store.Account{}, fault.New(fault.NotFound, "no such API key")
	}
	if err != nil {
		return store.APIKey{}, store.Account{}, s.b.ReadErr("the API key", err)
	}
	a, err := ar.account()
	if err != nil {
		return store.APIKey{}, store.Account{}, err
	}
	return k, a, nil
}

// ListAPIKeys implements store.APIKeys.
func (s *Store) ListAPIKeys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	if !s.b.Storable(accountID) {
		return nil, nil
	}
	out, err := collect(ctx, s, "API keys", nil, func(r Row) (k store.APIKey, err error) {
		return k, r.Scan(keyTargets(s.b, &k)...)
	}, `SELECT `+keyCols+` FROM api_keys k WHERE k.account_id = ? ORDER BY k.created_at, k.id LIMIT ?`, accountID, store.MaxAPIKeysPerAccount)
	return out, err
}

// RevokeAPIKey implements store.APIKeys.
func (s *Store) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	if !s.b.Storable(accountID, keyID) {
		return notFound("API key", keyID)
	}
	return s.writeOne(ctx, "the API key", notFound("API key", keyID),
		`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = ?`, s.b.Time(s.b.Now()), keyID, accountID)
}

// MarkAPIKeysUsed implements store.APIKeys: one statement a key (in one
// round trip where the backend pipelines), in id order so two concurrent
// marks lock shared keys in the same order.
func (s *Store) MarkAPIKeysUsed(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	if len(used) > store.MaxAPIKeysMarked {
		return fault.New(fault.Invalid, "%d keys marked at once, over the limit of %d", len(used), store.MaxAPIKeysMarked)
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		if s.b.Storable(id) { // any other id matches no key: skipped, as unknown ids are
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	args := make([][]any, len(ids))
	for i, id := range ids {
		at := s.b.Time(used[id])
		args[i] = []any{at, at, id}
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		return execEach(ctx, tx, `UPDATE api_keys SET last_used_at = `+s.b.Greatest()+`(COALESCE(last_used_at, ?), ?) WHERE id = ?`, args)
	})
	return s.b.WriteErr("API key use", err)
}
