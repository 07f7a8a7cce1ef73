package sqlite

import (
	"context"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

const credMetaCols = `id, type, description, hosts, master_key_id, created_at, updated_at`

type credRow struct {
	c                store.Credential
	hosts            string
	created, updated int64
}

func (r *credRow) targets() []any {
	return []any{&r.c.ID, &r.c.Type, &r.c.Description, &r.hosts, &r.c.MasterKeyID, &r.created, &r.updated}
}

func (r *credRow) credential() store.Credential {
	c := r.c
	c.Hosts = store.SplitHosts(r.hosts)
	c.CreatedAt, c.UpdatedAt = fromMicros(r.created), fromMicros(r.updated)
	return c
}

// PutCredential implements store.Credentials.
func (db *DB) PutCredential(ctx context.Context, c store.Credential) (store.Credential, error) {
	if err := store.CheckCredential(c); err != nil {
		return store.Credential{}, err
	}
	now := micros(db.clock.Now())
	var created int64
	err := db.Write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM credentials`).Scan(&n); err != nil {
			return err
		}
		// n counts the record itself when it is replaced; the bound is loose by one then.
		if n >= store.MaxCredentials {
			if err := tx.QueryRow(`SELECT 1 FROM credentials WHERE id = ?`, c.ID).Scan(new(int)); isNoRows(err) {
				return fault.New(fault.Invalid, "the vault already holds %d credentials, the limit", n)
			}
		}
		return tx.QueryRow(`INSERT INTO credentials (id, type, description, hosts, master_key_id, nonce, ciphertext, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET type = excluded.type, description = excluded.description, hosts = excluded.hosts,
				master_key_id = excluded.master_key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext,
				updated_at = excluded.updated_at
			RETURNING created_at`,
			c.ID, c.Type, c.Description, store.JoinHosts(c.Hosts), c.MasterKeyID, nonEmpty(c.Nonce), c.Ciphertext, now, now).Scan(&created)
	})
	if err != nil {
		return store.Credential{}, writeErr("the credential", err)
	}
	c.CreatedAt, c.UpdatedAt = fromMicros(created), fromMicros(now)
	return c, nil
}

// nonEmpty binds a nil byte slice as an empty BLOB, not NULL.
func nonEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// GetCredential implements store.Credentials.
func (db *DB) GetCredential(ctx context.Context, id string) (store.Credential, error) {
	var r credRow
	err := db.ReadRow(ctx, `SELECT `+credMetaCols+`, nonce, ciphertext FROM credentials WHERE id = ?`, id).
		Scan(append(r.targets(), &r.c.Nonce, &r.c.Ciphertext)...)
	if isNoRows(err) {
		return store.Credential{}, notFound("credential", id)
	}
	if err != nil {
		return store.Credential{}, readErr("the credential", err)
	}
	return r.credential(), nil
}

// ListCredentials implements store.Credentials.
func (db *DB) ListCredentials(ctx context.Context, p store.Page) ([]store.Credential, string, error) {
	limit, err := store.PageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	out, err := db.readCredentials(ctx, `SELECT `+credMetaCols+` FROM credentials WHERE id > ? ORDER BY id LIMIT ?`, false, p.Cursor, limit+1)
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
	return db.readCredentials(ctx, `SELECT `+credMetaCols+`, nonce, ciphertext FROM credentials ORDER BY id LIMIT ?`, true, store.MaxCredentials)
}

func (db *DB) readCredentials(ctx context.Context, q string, secret bool, args ...any) ([]store.Credential, error) {
	rows, err := db.Read(ctx, q, args...)
	if err != nil {
		return nil, readErr("credentials", err)
	}
	defer rows.Close()
	var out []store.Credential
	for rows.Next() {
		var r credRow
		targets := r.targets()
		if secret {
			targets = append(targets, &r.c.Nonce, &r.c.Ciphertext)
		}
		if err := rows.Scan(targets...); err != nil {
			return nil, readErr("credentials", err)
		}
		out = append(out, r.credential())
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("credentials", err)
	}
	return out, nil
}

// DeleteCredential implements store.Credentials.
func (db *DB) DeleteCredential(ctx context.Context, id string) error {
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM credentials WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("credential", id)
		}
		return nil
	})
	return writeErr("the credential", err)
}

// RotateCredentials implements store.Credentials: all or nothing, in one
// write.
func (db *DB) RotateCredentials(ctx context.Context, creds []store.Credential) error {
	if len(creds) > store.MaxCredentials {
		return fault.New(fault.Invalid, "%d credentials at once, over the limit of %d", len(creds), store.MaxCredentials)
	}
	for _, c := range creds {
		if err := store.CheckCredential(c); err != nil {
			return err
		}
	}
	now := micros(db.clock.Now())
	err := db.Write(ctx, func(tx *Tx) error {
		for _, c := range creds {
			var updated int64
			err := tx.QueryRow(`SELECT updated_at FROM credentials WHERE id = ?`, c.ID).Scan(&updated)
			if isNoRows(err) {
				return notFound("credential", c.ID)
			}
			if err != nil {
				return err
			}
			if updated != micros(c.UpdatedAt) {
				return fault.New(fault.Conflict, "credential %q changed since it was read; nothing was rotated", c.ID).
					WithDetail("credentialId", c.ID).WithSuggestions("Read all credentials again and retry the rotation")
			}
			if _, err := tx.Exec(`UPDATE credentials SET master_key_id = ?, nonce = ?, ciphertext = ?, updated_at = ? WHERE id = ?`,
				c.MasterKeyID, nonEmpty(c.Nonce), c.Ciphertext, now, c.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return writeErr("the credentials", err)
}
