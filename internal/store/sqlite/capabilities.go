package sqlite

import (
	"context"
	"database/sql"

	"github.com/sluicehq/sluice/internal/store"
)

const capMetaCols = `namespace, id, version, checksum, type, level, audit_status, description, format, published_by, published_at`

type rowScanner interface{ Scan(dest ...any) error }

// scanCapability reads capMetaCols, then the document when withDoc.
func scanCapability(r rowScanner, withDoc bool) (store.CapabilityVersion, error) {
	var v store.CapabilityVersion
	var published int64
	dest := []any{&v.Namespace, &v.ID, &v.Version, &v.Checksum, &v.Type, &v.Level, &v.AuditStatus,
		&v.Description, &v.Format, &v.PublishedBy, &published}
	if withDoc {
		dest = append(dest, &v.Document)
	}
	if err := r.Scan(dest...); err != nil {
		return v, err
	}
	v.PublishedAt = fromMicros(published)
	return v, nil
}

// PublishCapability implements store.Capabilities.
func (db *DB) PublishCapability(ctx context.Context, v store.CapabilityVersion) (store.CapabilityVersion, bool, error) {
	if err := store.CheckCapability(v); err != nil {
		return store.CapabilityVersion{}, false, err
	}
	v.PublishedAt = fromMicros(micros(db.clock.Now()))
	var (
		existing store.CapabilityVersion
		found    bool
	)
	err := db.Write(ctx, func(tx *Tx) error {
		found = false
		row := tx.QueryRow(`SELECT `+capMetaCols+`, document FROM capability_versions WHERE namespace = ? AND id = ? AND version = ?`,
			v.Namespace, v.ID, v.Version)
		stored, err := scanCapability(row, true)
		switch {
		case err == nil && stored.Checksum == v.Checksum:
			existing, found = stored, true
			return nil
		case err == nil:
			return store.CapabilityImmutable(v, stored.Checksum)
		case !isNoRows(err):
			return err
		}
		var latest string
		var count int
		err = tx.QueryRow(`SELECT latest, versions FROM capabilities WHERE namespace = ? AND id = ?`, v.Namespace, v.ID).Scan(&latest, &count)
		switch {
		case isNoRows(err):
			if _, err := tx.Exec(`INSERT INTO capabilities (namespace, id, latest, versions) VALUES (?, ?, ?, 1)`,
				v.Namespace, v.ID, v.Version); err != nil {
				return err
			}
		case err != nil:
			return err
		case count >= store.MaxCapabilityVersions:
			return store.CapabilityVersionsFull(v.Namespace, v.ID)
		default:
			if store.LaterVersion(latest, v.Version) {
				latest = v.Version
			}
			if _, err := tx.Exec(`UPDATE capabilities SET latest = ?, versions = versions + 1 WHERE namespace = ? AND id = ?`,
				latest, v.Namespace, v.ID); err != nil {
				return err
			}
		}
		_, err = tx.Exec(`INSERT INTO capability_versions (namespace, id, version, checksum, type, level, audit_status,
			description, format, document, published_by, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			v.Namespace, v.ID, v.Version, v.Checksum, v.Type, v.Level, v.AuditStatus, v.Description, v.Format,
			v.Document, v.PublishedBy, micros(v.PublishedAt))
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
	v, err := scanCapability(db.ReadRow(ctx, `SELECT `+capMetaCols+`, document FROM capability_versions
		WHERE namespace = ? AND id = ? AND version = ?`, namespace, id, version), true)
	if isNoRows(err) {
		return v, store.CapabilityVersionNotFound(namespace, id, version)
	}
	if err != nil {
		return v, readErr("the capability", err)
	}
	return v, nil
}

// ListCapabilityVersions implements store.Capabilities: publish order.
func (db *DB) ListCapabilityVersions(ctx context.Context, namespace, id string) ([]store.CapabilityVersion, error) {
	if err := checkCapabilityRef(namespace, id); err != nil {
		return nil, err
	}
	rows, err := db.Read(ctx, `SELECT `+capMetaCols+` FROM capability_versions WHERE namespace = ? AND id = ? ORDER BY seq`, namespace, id)
	if err != nil {
		return nil, readErr("the capability's versions", err)
	}
	return collectCapabilities(rows)
}

func collectCapabilities(rows *sql.Rows) ([]store.CapabilityVersion, error) {
	defer rows.Close()
	out := []store.CapabilityVersion{}
	for rows.Next() {
		v, err := scanCapability(rows, false)
		if err != nil {
			return nil, readErr("the capability's versions", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("the capability's versions", err)
	}
	return out, nil
}

// ListCapabilities implements store.Capabilities: (namespace, id) order;
// the prefix matches the namespace itself or one under it, which is the range
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
	q := `SELECT c.versions, ` + prefixed("v.", capMetaCols) + ` FROM capabilities c
		JOIN capability_versions v ON v.namespace = c.namespace AND v.id = c.id AND v.version = c.latest
		WHERE (c.namespace, c.id) > (?, ?) AND (? = '' OR c.namespace = ? OR (c.namespace > ? AND c.namespace < ?))
		ORDER BY c.namespace, c.id LIMIT ?`
	rows, err := db.Read(ctx, q, afterNS, afterID, prefix, prefix, prefix+"/", prefix+"0", limit+1)
	if err != nil {
		return nil, "", readErr("capabilities", err)
	}
	defer rows.Close()
	out := []store.CapabilitySummary{}
	for rows.Next() {
		var s store.CapabilitySummary
		var published int64
		l := &s.Latest
		if err := rows.Scan(&s.Versions, &l.Namespace, &l.ID, &l.Version, &l.Checksum, &l.Type, &l.Level, &l.AuditStatus,
			&l.Description, &l.Format, &l.PublishedBy, &published); err != nil {
			return nil, "", readErr("capabilities", err)
		}
		l.PublishedAt = fromMicros(published)
		s.Namespace, s.ID = l.Namespace, l.ID
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
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
