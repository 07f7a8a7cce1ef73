package sqlite

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// PutKnowledgeBase implements store.KnowledgeBases.
func (db *DB) PutKnowledgeBase(ctx context.Context, kb store.KnowledgeBase) (store.KnowledgeBase, error) {
	if err := store.CheckKnowledgeBase(kb); err != nil {
		return store.KnowledgeBase{}, err
	}
	now := micros(db.clock.Now())
	out := kb
	err := db.Write(ctx, func(tx *Tx) error {
		var created int64
		err := tx.QueryRow(`SELECT created_at FROM knowledge_bases WHERE name = ?`, kb.Name).Scan(&created)
		switch {
		case err == nil:
			out.CreatedAt = fromMicros(created)
			_, err = tx.Exec(`UPDATE knowledge_bases SET kind = ?, format = ?, document = ?, checksum = ?, created_by = ?, updated_at = ? WHERE name = ?`,
				kb.Kind, kb.Format, kb.Document, kb.Checksum, kb.CreatedBy, now, kb.Name)
			return err
		case !isNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM knowledge_bases`).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxKnowledgeBases {
			return store.KnowledgeFull()
		}
		out.CreatedAt = fromMicros(now)
		_, err = tx.Exec(`INSERT INTO knowledge_bases (name, kind, format, document, checksum, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			kb.Name, kb.Kind, kb.Format, kb.Document, kb.Checksum, kb.CreatedBy, now, now)
		return err
	})
	if err != nil {
		return store.KnowledgeBase{}, writeErr("the knowledge base", err)
	}
	out.UpdatedAt = fromMicros(now)
	return out, nil
}

// GetKnowledgeBase implements store.KnowledgeBases.
func (db *DB) GetKnowledgeBase(ctx context.Context, name string) (store.KnowledgeBase, error) {
	if err := store.CheckKnowledgeName(name); err != nil {
		return store.KnowledgeBase{}, err
	}
	kb := store.KnowledgeBase{Name: name}
	var created, updated int64
	err := db.ReadRow(ctx, `SELECT kind, format, document, checksum, created_by, created_at, updated_at FROM knowledge_bases WHERE name = ?`, name).
		Scan(&kb.Kind, &kb.Format, &kb.Document, &kb.Checksum, &kb.CreatedBy, &created, &updated)
	if isNoRows(err) {
		return kb, notFound("knowledge base", name)
	}
	if err != nil {
		return kb, readErr("the knowledge base", err)
	}
	kb.CreatedAt, kb.UpdatedAt = fromMicros(created), fromMicros(updated)
	return kb, nil
}

// ListKnowledgeBases implements store.KnowledgeBases.
func (db *DB) ListKnowledgeBases(ctx context.Context) ([]store.KnowledgeBase, error) {
	rows, err := db.Read(ctx, `SELECT name, kind, format, document, checksum, created_by, created_at, updated_at FROM knowledge_bases ORDER BY name`)
	if err != nil {
		return nil, readErr("the knowledge bases", err)
	}
	defer rows.Close()
	out := []store.KnowledgeBase{}
	for rows.Next() {
		var kb store.KnowledgeBase
		var created, updated int64
		if err := rows.Scan(&kb.Name, &kb.Kind, &kb.Format, &kb.Document, &kb.Checksum, &kb.CreatedBy, &created, &updated); err != nil {
			return nil, readErr("the knowledge bases", err)
		}
		kb.CreatedAt, kb.UpdatedAt = fromMicros(created), fromMicros(updated)
		out = append(out, kb)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("the knowledge bases", err)
	}
	return out, nil
}

// DeleteKnowledgeBase implements store.KnowledgeBases.
func (db *DB) DeleteKnowledgeBase(ctx context.Context, name string) error {
	if err := store.CheckKnowledgeName(name); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM knowledge_bases WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("knowledge base", name)
		}
		return nil
	})
	return writeErr("the knowledge base", err)
}
