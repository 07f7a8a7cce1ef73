package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// PutKnowledgeBase implements store.KnowledgeBases. The dialect's serial
// lock makes the count and the insert one step across processes (writes of
// knowledge bases are rare admin actions).
func (s *Store) PutKnowledgeBase(ctx context.Context, kb store.KnowledgeBase) (store.KnowledgeBase, error) {
	if err := store.CheckKnowledgeBase(kb); err != nil {
		return store.KnowledgeBase{}, err
	}
	now := s.b.Now()
	var out store.KnowledgeBase
	err := s.b.Write(ctx, func(tx Querier) error {
		out = kb
		out.CreatedAt, out.UpdatedAt = now, now
		if err := s.serialLock(ctx, tx, "sluice.knowledge_bases"); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT created_at FROM knowledge_bases WHERE name = ?`, kb.Name).Scan(s.b.ScanTime(&out.CreatedAt))
		switch {
		case err == nil:
			_, err = tx.Exec(ctx, `UPDATE knowledge_bases SET kind = ?, format = ?, document = ?, checksum = ?, created_by = ?, updated_at = ? WHERE name = ?`,
				kb.Kind, kb.Format, kb.Document, kb.Checksum, kb.CreatedBy, s.b.Time(now), kb.Name)
			return err
		case !s.b.IsNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM knowledge_bases`).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxKnowledgeBases {
			return store.KnowledgeFull()
		}
		_, err = tx.Exec(ctx, `INSERT INTO knowledge_bases (name, kind, format, document, checksum, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			kb.Name, kb.Kind, kb.Format, kb.Document, kb.Checksum, kb.CreatedBy, s.b.Time(now), s.b.Time(now))
		return err
	})
	if err != nil {
		return store.KnowledgeBase{}, s.b.WriteErr("the knowledge base", err)
	}
	return out, nil
}

const knowledgeCols = `kind, format, document, checksum, created_by, created_at, updated_at`

func (s *Store) knowledgeTargets(kb *store.KnowledgeBase) []any {
	return []any{&kb.Kind, &kb.Format, &kb.Document, &kb.Checksum, &kb.CreatedBy, s.b.ScanTime(&kb.CreatedAt), s.b.ScanTime(&kb.UpdatedAt)}
}

// GetKnowledgeBase implements store.KnowledgeBases.
func (s *Store) GetKnowledgeBase(ctx context.Context, name string) (store.KnowledgeBase, error) {
	if err := store.CheckKnowledgeName(name); err != nil {
		return store.KnowledgeBase{}, err
	}
	kb := store.KnowledgeBase{Name: name}
	err := s.readOne(ctx, "knowledge base", name, `SELECT `+knowledgeCols+` FROM knowledge_bases WHERE name = ?`, s.knowledgeTargets(&kb)...)
	return kb, err
}

// ListKnowledgeBases implements store.KnowledgeBases.
func (s *Store) ListKnowledgeBases(ctx context.Context) ([]store.KnowledgeBase, error) {
	out, err := collect(ctx, s, "the knowledge bases", []store.KnowledgeBase{}, func(r Row) (kb store.KnowledgeBase, err error) {
		return kb, r.Scan(append([]any{&kb.Name}, s.knowledgeTargets(&kb)...)...)
	}, `SELECT name, `+knowledgeCols+` FROM knowledge_bases ORDER BY name`)
	return out, err
}

// DeleteKnowledgeBase implements store.KnowledgeBases.
func (s *Store) DeleteKnowledgeBase(ctx context.Context, name string) error {
	if err := store.CheckKnowledgeName(name); err != nil {
		return err
	}
	return s.writeOne(ctx, "the knowledge base", notFound("knowledge base", name), `DELETE FROM knowledge_bases WHERE name = ?`, name)
}
