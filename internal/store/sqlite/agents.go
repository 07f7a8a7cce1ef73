package sqlite

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// PutAgent implements store.Agents.
func (db *DB) PutAgent(ctx context.Context, a store.Agent) (store.Agent, bool, error) {
	if err := store.CheckAgent(a); err != nil {
		return store.Agent{}, false, err
	}
	now := micros(db.clock.Now())
	out := a
	var created bool
	err := db.Write(ctx, func(tx *Tx) error {
		created = false
		var at int64
		err := tx.QueryRow(`SELECT created_at FROM agents WHERE name = ?`, a.Name).Scan(&at)
		switch {
		case err == nil:
			out.CreatedAt = fromMicros(at)
			_, err = tx.Exec(`UPDATE agents SET entry = ?, updated_at = ? WHERE name = ?`, []byte(a.Entry), now, a.Name)
			return err
		case !isNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM agents`).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxAgents {
			return store.AgentsFull()
		}
		out.CreatedAt, created = fromMicros(now), true
		_, err = tx.Exec(`INSERT INTO agents (name, entry, created_at, updated_at) VALUES (?, ?, ?, ?)`, a.Name, []byte(a.Entry), now, now)
		return err
	})
	if err != nil {
		return store.Agent{}, false, writeErr("the agent", err)
	}
	out.UpdatedAt = fromMicros(now)
	return out, created, nil
}

// GetAgent implements store.Agents.
func (db *DB) GetAgent(ctx context.Context, name string) (store.Agent, error) {
	if err := store.CheckAgentName(name); err != nil {
		return store.Agent{}, err
	}
	a := store.Agent{Name: name}
	var entry []byte
	var created, updated int64
	err := db.ReadRow(ctx, `SELECT entry, created_at, updated_at FROM agents WHERE name = ?`, name).Scan(&entry, &created, &updated)
	if isNoRows(err) {
		return a, notFound("agent", name)
	}
	if err != nil {
		return a, readErr("the agent", err)
	}
	a.Entry, a.CreatedAt, a.UpdatedAt = entry, fromMicros(created), fromMicros(updated)
	return a, nil
}

// ListAgents implements store.Agents.
func (db *DB) ListAgents(ctx context.Context) ([]store.Agent, error) {
	rows, err := db.Read(ctx, `SELECT name, entry, created_at, updated_at FROM agents ORDER BY name`)
	if err != nil {
		return nil, readErr("the agents", err)
	}
	defer rows.Close()
	out := []store.Agent{}
	for rows.Next() {
		var a store.Agent
		var entry []byte
		var created, updated int64
		if err := rows.Scan(&a.Name, &entry, &created, &updated); err != nil {
			return nil, readErr("the agents", err)
		}
		a.Entry, a.CreatedAt, a.UpdatedAt = entry, fromMicros(created), fromMicros(updated)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("the agents", err)
	}
	return out, nil
}

// DeleteAgent implements store.Agents.
func (db *DB) DeleteAgent(ctx context.Context, name string) error {
	if err := store.CheckAgentName(name); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM agents WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("agent", name)
		}
		return nil
	})
	return writeErr("the agent", err)
}
