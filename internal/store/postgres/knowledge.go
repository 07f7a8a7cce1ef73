package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

// PutKnowledgeBase implements store.KnowledgeBases. A transaction-scoped
// advisory lock makes the count and the insert one step across processes
// (writes of knowledge bases are rare admin actions).
func (db *DB) PutKnowledgeBase(ctx context.Context, kb store.KnowledgeBase) (store.KnowledgeBase, error) {
	if err := store.CheckKnowledgeBase(kb); err != nil {
		return store.KnowledgeBase{}, err
	}
	now := db.now()
	var out store.KnowledgeBase
	err := db.Write(ctx, func(tx pgx.Tx) error {
		out = kb
		out.CreatedAt, out.UpdatedAt = now, now
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('sluice.knowledge_bases'))`); err != nil {
			return err
		}
		var created = now
		err := tx.QueryRow(ctx, `SELECT created_at FROM knowledge_bases WHERE name = $1`, kb.Name).Scan(&created)
		switch {
		case err == nil:
			out.CreatedAt = utc(created)
			_, err = tx.Exec(ctx, `UPDATE knowledge_bases SET kind = $1, format = $2, document = $3, checksum = $4, created_by = $5, updated_at = $6 WHERE name = $7`,
				kb.Kind, kb.Format, kb.Document, kb.Checksum, kb.CreatedBy, now, kb.Name)
			return err
		case !isNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM knowledge_bases`).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxKnowledgeBases {
			return store.KnowledgeFull()
		}
		_, err = tx.Exec(ctx, `INSERT INTO knowledge_bases (name, kind, format, document, checksum, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			kb.Name, kb.Kind, kb.Format, kb.Document, kb.Checksum, kb.CreatedBy, now, now)
		return err
	})
	if err != nil {
		return store.KnowledgeBase{}, writeErr("the knowledge base", err)
	}
	return out, nil
}

// GetKnowledgeBase implements store.KnowledgeBases.
func (db *DB) GetKnowledgeBase(ctx context.Context, name string) (store.KnowledgeBase, error) {
	if err := store.CheckKnowledgeName(name); err != nil {
		return store.KnowledgeBase{}, err
	}
	kb := store.KnowledgeBase{Name: name}
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT kind, format, document, checksum, created_by, created_at, updated_at FROM knowledge_bases WHERE name = $1`, name).
			Scan(&kb.Kind, &kb.Format, &kb.Document, &kb.Checksum, &kb.CreatedBy, &kb.CreatedAt, &kb.UpdatedAt)
	})
	if isNoRows(err) {
		return kb, notFound("knowledge base", name)
	}
	if err != nil {
		return kb, readErr("the knowledge base", err)
	}
	kb.CreatedAt, kb.UpdatedAt = utc(kb.CreatedAt), utc(kb.UpdatedAt)
	return kb, nil
}

// ListKnowledgeBases implements store.KnowledgeBases.
func (db *DB) ListKnowledgeBases(ctx context.Context) ([]store.KnowledgeBase, error) {
	out := []store.KnowledgeBase{}
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT name, kind, format, document, checksum, created_by, created_at, updated_at FROM knowledge_bases ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kb store.KnowledgeBase
			if err := rows.Scan(&kb.Name, &kb.Kind, &kb.Format, &kb.Document, &kb.Checksum, &kb.CreatedBy, &kb.CreatedAt, &kb.UpdatedAt); err != nil {
				return err
			}
			kb.CreatedAt, kb.UpdatedAt = utc(kb.CreatedAt), utc(kb.UpdatedAt)
			out = append(out, kb)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("the knowledge bases", err)
	}
	return out, nil
}

// DeleteKnowledgeBase implements store.KnowledgeBases.
func (db *DB) DeleteKnowledgeBase(ctx context.Context, name string) error {
	if err := store.CheckKnowledgeName(name); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM knowledge_bases WHERE name = $1`, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("knowledge base", name)
		}
		return nil
	})
	return writeErr("the knowledge base", err)
}
