package sqlstore

import (
	"context"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

const credMetaCols = `id, type, description, hosts, master_key_id, created_at, updated_at`

func (s *Store) credTargets(c *store.Credential, hosts *string, secret bool) []any {
	t := []any{&c.ID, &c.Type, &c.Description, hosts, &c.MasterKeyID, s.b.ScanTime(&c.CreatedAt), s.b.ScanTime(&c.UpdatedAt)}
	if secret {
		t = append(t, &c.Nonce, &c.Ciphertext)
	}
	return t
}

// nonEmpty binds a nil byte slice as an empty BLOB or bytea, not NULL.
func nonEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// PutCredential implements store.Credentials.
func (s *Store) PutCredential(ctx context.Context, c store.Credential) (store.Credential, error) {
	if err := store.CheckCredential(c); err != nil {
		return store.Credential{}, err
	}
	now := s.b.Now()
	var created time.Time
	err := s.b.Write(ctx, func(tx Querier) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM credentials`).Scan(&n); err != nil {
			return err
		}
		// n counts the record itself when it is replaced; the bound is loose
		// by one then, and on PostgreSQL by the writers racing at the bound.
		if n >= store.MaxCredentials {
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM credentials WHERE id = ?`, c.ID).Scan(&one); s.b.IsNoRows(err) {
				return fault.New(fault.Invalid, "the vault already holds %d credentials, the limit", n)
			}
		}
		return tx.QueryRow(ctx, `INSERT INTO credentials (id, type, description, hosts, master_key_id, nonce, ciphertext, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET type = excluded.type, description = excluded.description, hosts = excluded.hosts,
				master_key_id = excluded.master_key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext,
				updated_at = excluded.updated_at
			RETURNING created_at`,
			c.ID, c.Type, c.Description, store.JoinHosts(c.Hosts), c.MasterKeyID, nonEmpty(c.Nonce), c.Ciphertext,
			s.b.Time(now), s.b.Time(now)).Scan(s.b.ScanTime(&created))
	})
	if err != nil {
		return store.Credential{}, s.b.WriteErr("the credential", err)
	}
	c.CreatedAt, c.UpdatedAt = created, now
	return c, nil
}

// GetCredential implements store.Credentials.
func (s *Store) GetCredential(ctx context.Context, id string) (store.Credential, error) {
	var c store.Credential
	var hosts string
	if err := s.readOne(ctx, "credential", id, `SELECT `+credMetaCols+`, nonce, ciphertext FROM credentials WHERE id = ?`, s.credTargets(&c, &hosts, true)...); err != nil {
		return store.Credential{}, err
	}
	c.Hosts = store.SplitHosts(hosts)
	return c, nil
}

// ListCredentials implements store.Credentials.
func (s *Store) ListCredentials(ctx context.Context, p store.Page) ([]store.Credential, string, error) {
	limit, after, err := s.idPage(p)
	if err != nil {
		return nil, "", err
	}
	out, err := s.readCredentials(ctx, `SELECT `+credMetaCols+` FROM credentials WHERE id > ? ORDER BY id LIMIT ?`, false, after, limit+1)
	if err != nil {
		return nil, "", err
	}
	out, next := nextPage(out, limit, func(c store.Credential) string { return c.ID })
	return out, next, nil
}

// AllCredentials implements store.Credentials.
func (s *Store) AllCredentials(ctx context.Context) ([]store.Credential, error) {
	return s.readCredentials(ctx, `SELECT `+credMetaCols+`, nonce, ciphertext FROM credentials ORDER BY id LIMIT ?`, true, store.MaxCredentials)
}

func (s *Store) readCredentials(ctx context.Context, query string, secret bool, args ...any) ([]store.Credential, error) {
	out, err := collect(ctx, s, "credentials", nil, func(r Row) (c store.Credential, err error) {
		var hosts string
		err = r.Scan(s.credTargets(&c, &hosts, secret)...)
		c.Hosts = store.SplitHosts(hosts)
		return c, err
	}, query, args...)
	return out, err
}

// DeleteCredential implements store.Credentials.
func (s *Store) DeleteCredential(ctx context.Context, id string) error {
	if !s.b.Storable(id) {
		return notFound("credential", id)
	}
	return s.writeOne(ctx, "the credential", notFound("credential", id), `DELETE FROM credentials WHERE id = ?`, id)
}

// RotateCredentials implements store.Credentials: all or nothing, in one
// transaction. The records are locked (the dialect's row lock) and read in
// id order, so concurrent rotations lock in the same order; then compared in
// the order given (the first missing or changed one is the error), then
// written. Where the dialect has Unnest the read and the write are one
// statement each; else one statement a record, each set in one round trip
// where the backend pipelines.
func (s *Store) RotateCredentials(ctx context.Context, creds []store.Credential) error {
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
	now := s.b.Time(s.b.Now())
	ids := make([]string, len(creds))
	for i, c := range creds {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	updates := make([][]any, len(creds))
	for i, c := range creds {
		updates[i] = []any{c.MasterKeyID, nonEmpty(c.Nonce), c.Ciphertext, now, c.ID}
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		current, err := s.lockCredentials(ctx, tx, ids)
		if err != nil {
			return err
		}
		seen := make(map[string]bool, len(creds))
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
		}
		return s.updateCredentials(ctx, tx, now, updates)
	})
	return s.b.WriteErr("the credentials", err)
}

// credentialTypes are the SQL types of a rotation's rows: master key id,
// nonce, ciphertext, id (the order of updates' rows, now left out).
var credentialTypes = []string{"text", "bytea", "bytea", "text"}

// lockCredentials reads and locks the records of ids (sorted, no two
// alike) in id order, and answers when each was last updated; a missing one
// is not in the answer. One statement over the dialect's Unnest where it
// has one (a rotation of a whole vault is one round trip, not one a record),
// else one lookup a record (pipelined where tx can).
func (s *Store) lockCredentials(ctx context.Context, tx Querier, ids []string) (map[string]time.Time, error) {
	current := make(map[string]time.Time, len(ids))
	rows := make([][]any, len(ids))
	for i, id := range ids {
		rows[i] = []any{id}
	}
	from, args, ok := s.b.Unnest([]string{"text"}, rows)
	if !ok {
		err := queryEach(ctx, tx, `SELECT updated_at FROM credentials WHERE id = ?`+s.b.RowLock(), rows, func(i int, row Row) error {
			var at time.Time
			switch err := row.Scan(s.b.ScanTime(&at)); {
			case s.b.IsNoRows(err):
				return nil // missing: the caller says so, in the order given
			case err != nil:
				return err
			}
			current[ids[i]] = at
			return nil
		})
		return current, err
	}
	found, err := tx.Query(ctx, `SELECT id, updated_at FROM credentials WHERE id IN (`+from+`) ORDER BY id`+s.b.RowLock(), args...)
	if err != nil {
		return nil, err
	}
	defer found.Close()
	for found.Next() {
		var id string
		var at time.Time
		if err := found.Scan(&id, s.b.ScanTime(&at)); err != nil {
			return nil, err
		}
		current[id] = at
	}
	return current, found.Err()
}

// updateCredentials writes a rotation's rows (master key id, nonce,
// ciphertext, updated_at, id): one UPDATE over the dialect's Unnest where it
// has one, else one a record (pipelined where tx can).
func (s *Store) updateCredentials(ctx context.Context, tx Querier, now any, updates [][]any) error {
	rows := make([][]any, len(updates))
	for i, u := range updates {
		rows[i] = []any{u[0], u[1], u[2], u[4]}
	}
	from, args, ok := s.b.Unnest(credentialTypes, rows)
	if !ok {
		return execEach(ctx, tx, `UPDATE credentials SET master_key_id = ?, nonce = ?, ciphertext = ?, updated_at = ? WHERE id = ?`, updates)
	}
	_, err := tx.Exec(ctx, `UPDATE credentials SET master_key_id = u.mk, nonce = u.nonce, ciphertext = u.ct, updated_at = ?
		FROM (`+from+`) AS u(mk, nonce, ct, id) WHERE credentials.id = u.id`, append([]any{now}, args...)...)
	return err
}
