package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// PutAgent implements store.Agents. The dialect's serial lock makes the
// count and the insert one step across processes (registrations are rare
// admin actions).
func (s *Store) PutAgent(ctx context.Context, a store.Agent) (store.Agent, bool, error) {
	if err := store.CheckAgent(a); err != nil {
		return store.Agent{}, false, err
	}
	now := s.b.Now()
	var out store.Agent
	var created bool
	err := s.b.Write(ctx, func(tx Querier) error {
		out, created = a, false
		out.CreatedAt, out.UpdatedAt = now, now
		if err := s.serialLock(ctx, tx, "sluice.agents"); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT created_at FROM agents WHERE name = ?`, a.Name).Scan(s.b.ScanTime(&out.CreatedAt))
		switch {
		case err == nil:
			_, err = tx.Exec(ctx, `UPDATE agents SET entry = ?, updated_at = ? WHERE name = ?`, []byte(a.Entry), s.b.Time(now), a.Name)
			return err
		case !s.b.IsNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM agents`).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxAgents {
			return store.AgentsFull()
		}
		created = true
		_, err = tx.Exec(ctx, `INSERT INTO agents (name, entry, created_at, updated_at) VALUES (?, ?, ?, ?)`,
			a.Name, []byte(a.Entry), s.b.Time(now), s.b.Time(now))
		return err
	})
	if err != nil {
		return store.Agent{}, false, s.b.WriteErr("the agent", err)
	}
	return out, created, nil
}

func (s *Store) agentTargets(a *store.Agent, entry *[]byte) []any {
	return []any{entry, s.b.ScanTime(&a.CreatedAt), s.b.ScanTime(&a.UpdatedAt)}
}

// GetAgent implements store.Agents.
func (s *Store) GetAgent(ctx context.Context, name string) (store.Agent, error) {
	if err := store.CheckAgentName(name); err != nil {
		return store.Agent{}, err
	}
	a := store.Agent{Name: name}
	var entry []byte
	err := s.readOne(ctx, "agent", name, `SELECT entry, created_at, updated_at FROM agents WHERE name = ?`, s.agentTargets(&a, &entry)...)
	a.Entry = entry
	return a, err
}

// ListAgents implements store.Agents.
func (s *Store) ListAgents(ctx context.Context) ([]store.Agent, error) {
	out, err := collect(ctx, s, "the agents", []store.Agent{}, func(r Row) (a store.Agent, err error) {
		var entry []byte
		err = r.Scan(append([]any{&a.Name}, s.agentTargets(&a, &entry)...)...)
		a.Entry = entry
		return a, err
	}, `SELECT name, entry, created_at, updated_at FROM agents ORDER BY name`)
	return out, err
}

// DeleteAgent implements store.Agents.
func (s *Store) DeleteAgent(ctx context.Context, name string) error {
	if err := store.CheckAgentName(name); err != nil {
		return err
	}
	return s.writeOne(ctx, "the agent", notFound("agent", name), `DELETE FROM agents WHERE name = ?`, name)
}
