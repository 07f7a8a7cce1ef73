package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

const capMetaCols = `namespace, id, version, checksum, type, level, audit_status, description, format, published_by, published_at`

// scanCapability reads capMetaCols, then the document when withDoc.
func scanCapability(r pgx.Row, withDoc bool) (store.CapabilityVersion, error) {
	var v store.CapabilityVersion
	dest := []any{&v.Namespace, &v.ID, &v.Version, &v.Checksum, &v.Type, &v.Level, &v.AuditStatus,
		&v.Description, &v.Format, &v.PublishedBy, &v.PublishedAt}
	if withDoc {
		dest = append(dest, &v.Document)
	}
	if err := r.Scan(dest...); err != nil {
		return v, err
	}
	v.PublishedAt = utc(v.PublishedAt)
	return v, nil
}

// PublishCapability implements store.Capabilities. The capability's row is
// created if need be and locked (FOR NO KEY UPDATE) first, so publishes of
// one NS/ID from any process run one after the other: the look-up of the
// version, the bound, the insert and the new latest are one step.
func (db *DB) PublishCapability(ctx context.Context, v store.CapabilityVersion) (store.CapabilityVersion, bool, error) {
	if err := store.CheckCapability(v); err != nil {
		return store.CapabilityVersion{}, false, err
	}
	v.PublishedAt = db.now()
	var (
		existing store.CapabilityVersion
		found    bool
	)
	err := db.Write(ctx, func(tx pgx.Tx) error {
		found = false
		// A new capability's row starts with no version; the update below
		// gives it its first.
		if _, err := tx.Exec(ctx, `INSERT INTO capabilities (namespace, id, latest, versions) VALUES ($1, $2, '', 0)
			ON CONFLICT (namespace, id) DO NOTHING`, v.Namespace, v.ID); err != nil {
			return err
		}
		// The row lock comes before the version's insert, whose foreign key
		// check then needs no lock of its own on the row.
		var (
			latest string
			count  int
		)
		if err := tx.QueryRow(ctx, `SELECT latest, versions FROM capabilities WHERE namespace = $1 AND id = $2 FOR NO KEY UPDATE`,
			v.Namespace, v.ID).Scan(&latest, &count); err != nil {
			return err
		}
		stored, err := scanCapability(tx.QueryRow(ctx, `SELECT `+capMetaCols+`, document FROM capability_versions
			WHERE namespace = $1 AND id = $2 AND version = $3`, v.Namespace, v.ID, v.Version), true)
		switch {
		case err == nil && stored.Checksum == v.Checksum:
			existing, found = stored, true
			return nil
		case err == nil:
			return store.CapabilityImmutable(v, stored.Checksum)
		case !isNoRows(err):
			return err
		}
		if count >= store.MaxCapabilityVersions {
			return store.CapabilityVersionsFull(v.Namespace, v.ID)
		}
		if store.LaterVersion(latest, v.Version) {
			latest = v.Version
		}
		if _, err := tx.Exec(ctx, `INSERT INTO capability_versions (namespace, id, version, checksum, type, level, audit_status,
			description, format, document, published_by, published_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			v.Namespace, v.ID, v.Version, v.Checksum, v.Type, v.Level, v.AuditStatus, v.Description, v.Format,
			v.Document, v.PublishedBy, v.PublishedAt); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE capabilities SET latest = $3, versions = versions + 1 WHERE namespace = $1 AND id = $2`,
			v.Namespace, v.ID, latest)
		return err
	})
	if err != nil {
		return store.CapabilityVersion{}, false, writeErr("the capability", err)
	}
	if found {
		return existing, false, nil
	}
	return v, true, nil
}

// GetCapabilityVersion implements store.Capabilities.
func (db *DB) GetCapabilityVersion(ctx context.Context, namespace, id, version string) (store.CapabilityVersion, error) {
	if err := checkCapabilityRef(namespace, id); err != nil {
		return store.CapabilityVersion{}, err
	}
	if err := store.CheckCapabilityVersion("version", version); err != nil {
		return store.CapabilityVersion{}, err
	}
	var v store.CapabilityVersion
	err := db.Read(ctx, func(q Querier) (err error) {
		v, err = scanCapability(q.QueryRow(ctx, `SELECT `+capMetaCols+`, document FROM capability_versions
			WHERE namespace = $1 AND id = $2 AND version = $3`, namespace, id, version), true)
		return err
	})
	if isNoRows(err) {
		return store.CapabilityVersion{}, store.CapabilityVersionNotFound(namespace, id, version)
	}
	if err != nil {
		return store.CapabilityVersion{}, readErr("the capability", err)
	}
	return v, nil
}

// ListCapabilityVersions implements store.Capabilities: publish order.
func (db *DB) ListCapabilityVersions(ctx context.Context, namespace, id string) ([]store.CapabilityVersion, error) {
	if err := checkCapabilityRef(namespace, id); err != nil {
		return nil, err
	}
	out := []store.CapabilityVersion{}
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT `+capMetaCols+` FROM capability_versions WHERE namespace = $1 AND id = $2 ORDER BY seq`, namespace, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scanCapability(rows, false)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("the capability's versions", err)
	}
	return out, nil
}

// ListCapabilities implements store.Capabilities: (namespace, id) order; the
// prefix matches the namespace itself or one under it, which is the range
// (prefix + "/", prefix + "0") as '0' follows '/' in byte order.
func (db *DB) ListCapabilities(ctx context.Context, namespacePrefix string, p store.Page) ([]store.CapabilitySummary, string, error) {
	prefix, err := store.CheckCapabilityPrefix(namespacePrefix)
	if err != nil {
		return nil, "", err
	}
	limit, err := store.PageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	afterNS, afterID, err := store.ParseCapabilityCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	query := `SELECT c.versions, v.namespace, v.id, v.version, v.checksum, v.type, v.level, v.audit_status, v.description,
			v.format, v.published_by, v.published_at
		FROM capabilities c
		JOIN capability_versions v ON v.namespace = c.namespace AND v.id = c.id AND v.version = c.latest
		WHERE (c.namespace, c.id) > ($1, $2)`
	args := []any{afterNS, afterID}
	if prefix != "" {
		query += ` AND (c.namespace = $3 OR (c.namespace > $4 AND c.namespace < $5))`
		args = append(args, prefix, prefix+"/", prefix+"0")
	}
	args = append(args, limit+1)
	query += fmt.Sprintf(` ORDER BY c.namespace, c.id LIMIT $%d`, len(args))
	out := []store.CapabilitySummary{}
	err = db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s store.CapabilitySummary
			l := &s.Latest
			if err := rows.Scan(&s.Versions, &l.Namespace, &l.ID, &l.Version, &l.Checksum, &l.Type, &l.Level, &l.AuditStatus,
				&l.Description, &l.Format, &l.PublishedBy, &l.PublishedAt); err != nil {
				return err
			}
			l.PublishedAt = utc(l.PublishedAt)
			s.Namespace, s.ID = l.Namespace, l.ID
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", readErr("capabilities", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = store.CapabilityCursor(out[limit-1].Namespace, out[limit-1].ID)
	}
	return out, next, nil
}

func checkCapabilityRef(namespace, id string) error {
	if err := store.CheckCapabilityNamespace("namespace", namespace); err != nil {
		return err
	}
	return store.CheckCapabilityID("id", id)
}
