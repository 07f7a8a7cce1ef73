package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

// PutAgent implements store.Agents. A transaction-scoped advisory lock makes
// the count and the insert one step across processes (registrations are
// rare admin actions).
func (db *DB) PutAgent(ctx context.Context, a store.Agent) (store.Agent, bool, error) {
	if err := store.CheckAgent(a); err != nil {
		return store.Agent{}, false, err
	}
	now := db.now()
	var out store.Agent
	var created bool
	err := db.Write(ctx, func(tx pgx.Tx) error {
		out, created = a, false
		out.CreatedAt, out.UpdatedAt = now, now
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('sluice.agents'))`); err != nil {
			return err
		}
		var at = now
		err := tx.QueryRow(ctx, `SELECT created_at FROM agents WHERE name = $1`, a.Name).Scan(&at)
		switch {
		case err == nil:
			out.CreatedAt = utc(at)
			_, err = tx.Exec(ctx, `UPDATE agents SET entry = $1, updated_at = $2 WHERE name = $3`, []byte(a.Entry), now, a.Name)
			return err
		case !isNoRows(err):
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
		_, err = tx.Exec(ctx, `INSERT INTO agents (name, entry, created_at, updated_at) VALUES ($1, $2, $3, $4)`,
			a.Name, []byte(a.Entry), now, now)
		return err
	})
	if err != nil {
		return store.Agent{}, false, writeErr("the agent", err)
	}
	return out, created, nil
}

// GetAgent implements store.Agents.
func (db *DB) GetAgent(ctx context.Context, name string) (store.Agent, error) {
	if err := store.CheckAgentName(name); err != nil {
		return store.Agent{}, err
	}
	a := store.Agent{Name: name}
	err := db.Read(ctx, func(q Querier) error {
		var entry []byte
		err := q.QueryRow(ctx, `SELECT entry, created_at, updated_at FROM agents WHERE name = $1`, name).
			Scan(&entry, &a.CreatedAt, &a.UpdatedAt)
		a.Entry = entry
		return err
	})
	if isNoRows(err) {
		return a, notFound("agent", name)
	}
	if err != nil {
		return a, readErr("the agent", err)
	}
	a.CreatedAt, a.UpdatedAt = utc(a.CreatedAt), utc(a.UpdatedAt)
	return a, nil
}

// ListAgents implements store.Agents.
func (db *DB) ListAgents(ctx context.Context) ([]store.Agent, error) {
	out := []store.Agent{}
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT name, entry, created_at, updated_at FROM agents ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a store.Agent
			var entry []byte
			if err := rows.Scan(&a.Name, &entry, &a.CreatedAt, &a.UpdatedAt); err != nil {
				return err
			}
			a.Entry, a.CreatedAt, a.UpdatedAt = entry, utc(a.CreatedAt), utc(a.UpdatedAt)
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("the agents", err)
	}
	return out, nil
}

// DeleteAgent implements store.Agents.
func (db *DB) DeleteAgent(ctx context.Context, name string) error {
	if err := store.CheckAgentName(name); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM agents WHERE name = $1`, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("agent", name)
		}
		return nil
	})
	return writeErr("the agent", err)
}
