package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

const credMetaCols = `id, type, description, hosts, master_key_id, created_at, updated_at`

func credTargets(c *store.Credential, hosts *string, secret bool) []any {
	t := []any{&c.ID, &c.Type, &c.Description, hosts, &c.MasterKeyID, &c.CreatedAt, &c.UpdatedAt}
	if secret {
		t = append(t, &c.Nonce, &c.Ciphertext)
	}
	return t
}

// PutCredential implements store.Credentials.
func (db *DB) PutCredential(ctx context.Context, c store.Credential) (store.Credential, error) {
	if err := store.CheckCredential(c); err != nil {
		return store.Credential{}, err
	}
	now := db.now()
	var created time.Time
	err := db.Write(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM credentials`).Scan(&n); err != nil {
			return err
		}
		// n counts the record itself when it is replaced; the bound is loose
		// by one then, and by the writers racing at the bound.
		if n >= store.MaxCredentials {
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM credentials WHERE id = $1`, c.ID).Scan(&one); isNoRows(err) {
				return fault.New(fault.Invalid, "the vault already holds %d credentials, the limit", n)
			}
		}
		return tx.QueryRow(ctx, `INSERT INTO credentials (id, type, description, hosts, master_key_id, nonce, ciphertext, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
			ON CONFLICT (id) DO UPDATE SET type = excluded.type, description = excluded.description, hosts = excluded.hosts,
				master_key_id = excluded.master_key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext,
				updated_at = excluded.updated_at
			RETURNING created_at`,
			c.ID, c.Type, c.Description, store.JoinHosts(c.Hosts), c.MasterKeyID, nonEmpty(c.Nonce), c.Ciphertext, now).Scan(&created)
	})
	if err != nil {
		return store.Credential{}, writeErr("the credential", err)
	}
	c.CreatedAt, c.UpdatedAt = utc(created), now
	return c, nil
}

// GetCredential implements store.Credentials.
func (db *DB) GetCredential(ctx context.Context, id string) (store.Credential, error) {
	if !storable(id) {
		return store.Credential{}, notFound("credential", id)
	}
	var c store.Credential
	var hosts string
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT `+credMetaCols+`, nonce, ciphertext FROM credentials WHERE id = $1`, id).
			Scan(credTargets(&c, &hosts, true)...)
	})
	if isNoRows(err) {
		return store.Credential{}, notFound("credential", id)
	}
	if err != nil {
		return store.Credential{}, readErr("the credential", err)
	}
	c.Hosts = store.SplitHosts(hosts)
	c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
	return c, nil
}

// ListCredentials implements store.Credentials.
func (db *DB) ListCredentials(ctx context.Context, p store.Page) ([]store.Credential, string, error) {
	limit, err := store.PageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	after, err := idCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	out, err := db.readCredentials(ctx, `SELECT `+credMetaCols+` FROM credentials WHERE id > $1 ORDER BY id LIMIT $2`, false, after, limit+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// AllCredentials implements store.Credentials.
func (db *DB) AllCredentials(ctx context.Context) ([]store.Credential, error) {
	return db.readCredentials(ctx, `SELECT `+credMetaCols+`, nonce, ciphertext FROM credentials ORDER BY id LIMIT $1`, true, store.MaxCredentials)
}

func (db *DB) readCredentials(ctx context.Context, query string, secret bool, args ...any) ([]store.Credential, error) {
	var out []store.Credential
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c store.Credential
			var hosts string
			if err := rows.Scan(credTargets(&c, &hosts, secret)...); err != nil {
				return err
			}
			c.Hosts = store.SplitHosts(hosts)
			c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("credentials", err)
	}
	return out, nil
}

// DeleteCredential implements store.Credentials.
func (db *DB) DeleteCredential(ctx context.Context, id string) error {
	if !storable(id) {
		return notFound("credential", id)
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM credentials WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("credential", id)
		}
		return nil
	})
	return writeErr("the credential", err)
}

// RotateCredentials implements store.Credentials: all or nothing, in one
// transaction. The records are locked and compared first, in the order
// given (the first missing or changed one is the error, as on SQLite), then
// written in one statement.
func (db *DB) RotateCredentials(ctx context.Context, creds []store.Credential) error {
	if len(creds) > store.MaxCredentials {
		return fault.New(fault.Invalid, "%d credentials at once, over the limit of %d", len(creds), store.MaxCredentials)
	}
	for _, c := range creds {
		if err := store.CheckCredential(c); err != nil {
			return err
		}
	}
	if len(creds) == 0 {
		return nil
	}
	now := db.now()
	ids := make([]string, len(creds))
	for i, c := range creds {
		ids[i] = c.ID
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, updated_at FROM credentials WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
		if err != nil {
			return err
		}
		current := make(map[string]time.Time, len(creds))
		for rows.Next() {
			var (
				id string
				at time.Time
			)
			if err := rows.Scan(&id, &at); err != nil {
				rows.Close()
				return err
			}
			current[id] = at
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var (
			keys, mks   []string
			nonces, cts [][]byte
			seen        = make(map[string]bool, len(creds))
		)
		for _, c := range creds {
			at, ok := current[c.ID]
			if !ok {
				return notFound("credential", c.ID)
			}
			// A record named twice has changed by its second mention.
			if seen[c.ID] || !at.Equal(c.UpdatedAt.Truncate(time.Microsecond)) {
				return fault.New(fault.Conflict, "credential %q changed since it was read; nothing was rotated", c.ID).
					WithDetail("credentialId", c.ID).WithSuggestions("Read all credentials again and retry the rotation")
			}
			seen[c.ID] = true
			keys, mks = append(keys, c.ID), append(mks, c.MasterKeyID)
			nonces, cts = append(nonces, nonEmpty(c.Nonce)), append(cts, c.Ciphertext)
		}
		_, err = tx.Exec(ctx, `UPDATE credentials c SET master_key_id = u.mk, nonce = u.nonce, ciphertext = u.ct, updated_at = $5
			FROM unnest($1::text[], $2::text[], $3::bytea[], $4::bytea[]) AS u(id, mk, nonce, ct)
			WHERE c.id = u.id`, keys, mks, nonces, cts, now)
		return err
	})
	return writeErr("the credentials", err)
}
