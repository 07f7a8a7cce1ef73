package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

const capMetaCols = `namespace, id, version, checksum, type, level, audit_status, description, format, published_by, published_at`

// scanCapability reads capMetaCols, then the document when withDoc.
func (s *Store) scanCapability(r Row, withDoc bool) (store.CapabilityVersion, error) {
	var v store.CapabilityVersion
	dest := []any{&v.Namespace, &v.ID, &v.Version, &v.Checksum, &v.Type, &v.Level, &v.AuditStatus,
		&v.Description, &v.Format, &v.PublishedBy, s.b.ScanTime(&v.PublishedAt)}
	if withDoc {
		dest = append(dest, &v.Document)
	}
	return v, r.Scan(dest...)
}

// PublishCapability implements store.Capabilities. The capability's row is
// created if need be and locked (the dialect's row lock) first, so publishes
// of one NS/ID from any process run one after the other: the look-up of the
// version, the bound, the insert and the new latest are one step.
func (s *Store) PublishCapability(ctx context.Context, v store.CapabilityVersion) (store.CapabilityVersion, bool, error) {
	if err := store.CheckCapability(v); err != nil {
		return store.CapabilityVersion{}, false, err
	}
	v.PublishedAt = s.b.Now()
	var (
		existing store.CapabilityVersion
		found    bool
	)
	err := s.b.Write(ctx, func(tx Querier) error {
		found = false
		// A new capability's row starts with no version; the update below
		// gives it its first.
		if _, err := tx.Exec(ctx, `INSERT INTO capabilities (namespace, id, latest, versions) VALUES (?, ?, '', 0)
			ON CONFLICT (namespace, id) DO NOTHING`, v.Namespace, v.ID); err != nil {
			return err
		}
		// The row lock comes before the version's insert, whose foreign key
		// check then needs no lock of its own on the row.
		var (
			latest string
			count  int
		)
		if err := tx.QueryRow(ctx, `SELECT latest, versions FROM capabilities WHERE namespace = ? AND id = ?`+s.b.RowLock(),
			v.Namespace, v.ID).Scan(&latest, &count); err != nil {
			return err
		}
		stored, err := s.scanCapability(tx.QueryRow(ctx, `SELECT `+capMetaCols+`, document FROM capability_versions
			WHERE namespace = ? AND id = ? AND version = ?`, v.Namespace, v.ID, v.Version), true)
		switch {
		case err == nil && stored.Checksum == v.Checksum:
			existing, found = stored, true
			return nil
		case err == nil:
			return store.CapabilityImmutable(v, stored.Checksum)
		case !s.b.IsNoRows(err):
			return err
		}
		if count >= store.MaxCapabilityVersions {
			return store.CapabilityVersionsFull(v.Namespace, v.ID)
		}
		if store.LaterVersion(latest, v.Version) {
			latest = v.Version
		}
		if _, err := tx.Exec(ctx, `INSERT INTO capability_versions (namespace, id, version, checksum, type, level, audit_status,
			description, format, document, published_by, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			v.Namespace, v.ID, v.Version, v.Checksum, v.Type, v.Level, v.AuditStatus, v.Description, v.Format,
			v.Document, v.PublishedBy, s.b.Time(v.PublishedAt)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE capabilities SET latest = ?, versions = versions + 1 WHERE namespace = ? AND id = ?`,
			latest, v.Namespace, v.ID)
		return err
	})
	if err != nil {
		return store.CapabilityVersion{}, false, s.b.WriteErr("the capability", err)
	}
	if found {
		return existing, false, nil
	}
	return v, true, nil
}

// GetCapabilityVersion implements store.Capabilities.
func (s *Store) GetCapabilityVersion(ctx context.Context, namespace, id, version string) (store.CapabilityVersion, error) {
	if err := checkCapabilityRef(namespace, id); err != nil {
		return store.CapabilityVersion{}, err
	}
	if err := store.CheckCapabilityVersion("version", version); err != nil {
		return store.CapabilityVersion{}, err
	}
	var v store.CapabilityVersion
	err := s.b.Read(ctx, func(q Querier) (err error) {
		v, err = s.scanCapability(q.QueryRow(ctx, `SELECT `+capMetaCols+`, document FROM capability_versions
			WHERE namespace = ? AND id = ? AND version = ?`, namespace, id, version), true)
		return err
	})
	if s.b.IsNoRows(err) {
		return store.CapabilityVersion{}, store.CapabilityVersionNotFound(namespace, id, version)
	}
	if err != nil {
		return store.CapabilityVersion{}, s.b.ReadErr("the capability", err)
	}
	return v, nil
}

// ListCapabilityVersions implements store.Capabilities: publish order.
func (s *Store) ListCapabilityVersions(ctx context.Context, namespace, id string) ([]store.CapabilityVersion, error) {
	if err := checkCapabilityRef(namespace, id); err != nil {
		return nil, err
	}
	out, err := collect(ctx, s, "the capability's versions", []store.CapabilityVersion{}, func(r Row) (store.CapabilityVersion, error) {
		return s.scanCapability(r, false)
	}, `SELECT `+capMetaCols+` FROM capability_versions WHERE namespace = ? AND id = ? ORDER BY seq`, namespace, id)
	return out, err
}

// ListCapabilities implements store.Capabilities: (namespace, id) order; the
// prefix matches the namespace itself or one under it, which is the range
// (prefix + "/", prefix + "0") as '0' follows '/' in byte order. The
// statement names the prefix only when there is one, so each form is
// planned for its own index.
func (s *Store) ListCapabilities(ctx context.Context, namespacePrefix string, p store.Page) ([]store.CapabilitySummary, string, error) {
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
	query := `SELECT c.versions, ` + prefixed("v.", capMetaCols) + ` FROM capabilities c
		JOIN capability_versions v ON v.namespace = c.namespace AND v.id = c.id AND v.version = c.latest
		WHERE (c.namespace, c.id) > (?, ?)`
	args := []any{afterNS, afterID}
	if prefix != "" {
		query += ` AND (c.namespace = ? OR (c.namespace > ? AND c.namespace < ?))`
		args = append(args, prefix, prefix+"/", prefix+"0")
	}
	query += ` ORDER BY c.namespace, c.id LIMIT ?`
	args = append(args, limit+1)
	out, err := collect(ctx, s, "capabilities", []store.CapabilitySummary{}, func(r Row) (c store.CapabilitySummary, err error) {
		l := &c.Latest
		err = r.Scan(&c.Versions, &l.Namespace, &l.ID, &l.Version, &l.Checksum, &l.Type, &l.Level, &l.AuditStatus,
			&l.Description, &l.Format, &l.PublishedBy, s.b.ScanTime(&l.PublishedAt))
		c.Namespace, c.ID = l.Namespace, l.ID
		return c, err
	}, query, args...)
	if err != nil {
		return nil, "", err
	}
	out, next := nextPage(out, limit, func(c store.CapabilitySummary) string { return store.CapabilityCursor(c.Namespace, c.ID) })
	return out, next, nil
}

func checkCapabilityRef(namespace, id string) error {
	if err := store.CheckCapabilityNamespace("namespace", namespace); err != nil {
		return err
	}
	return store.CheckCapabilityID("id", id)
}
