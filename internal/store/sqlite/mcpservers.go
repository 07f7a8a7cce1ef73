package sqlite

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// AddMCPServer implements store.MCPServers.
func (db *DB) AddMCPServer(ctx context.Context, s store.MCPServer) (store.MCPServer, error) {
	if err := store.CheckMCPServer(s); err != nil {
		return store.MCPServer{}, err
	}
	now := db.clock.Now()
	s.CreatedAt = fromMicros(micros(now))
	err := db.Write(ctx, func(tx *Tx) error {
		var command, url string
		var created int64
		err := tx.QueryRow(`SELECT command, url, created_at FROM mcp_servers WHERE account_id = ? AND name = ?`,
			s.AccountID, s.Name).Scan(&command, &url, &created)
		switch {
		case err == nil && command == s.Command && url == s.URL:
			s.CreatedAt = fromMicros(created)
			return nil
		case err == nil:
			return store.MCPServerTaken(s.Name)
		case !isNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM mcp_servers WHERE account_id = ?`, s.AccountID).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxMCPServersPerAccount {
			return store.MCPServersFull()
		}
		_, err = tx.Exec(`INSERT INTO mcp_servers (account_id, name, command, url, created_at) VALUES (?, ?, ?, ?, ?)`,
			s.AccountID, s.Name, s.Command, s.URL, micros(now))
		if isForeignKey(err) {
			return notFound("account", s.AccountID)
		}
		return err
	})
	if err != nil {
		return store.MCPServer{}, writeErr("the MCP server", err)
	}
	return s, nil
}

// ListMCPServers implements store.MCPServers.
func (db *DB) ListMCPServers(ctx context.Context, accountID string) ([]store.MCPServer, error) {
	if err := store.CheckID("account id", accountID); err != nil {
		return nil, err
	}
	rows, err := db.Read(ctx, `SELECT name, command, url, created_at FROM mcp_servers WHERE account_id = ? ORDER BY name`, accountID)
	if err != nil {
		return nil, readErr("the MCP servers", err)
	}
	defer rows.Close()
	out := []store.MCPServer{}
	for rows.Next() {
		s := store.MCPServer{AccountID: accountID}
		var created int64
		if err := rows.Scan(&s.Name, &s.Command, &s.URL, &created); err != nil {
			return nil, readErr("the MCP servers", err)
		}
		s.CreatedAt = fromMicros(created)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("the MCP servers", err)
	}
	return out, nil
}

// DeleteMCPServer implements store.MCPServers.
func (db *DB) DeleteMCPServer(ctx context.Context, accountID, name string) error {
	if err := store.CheckID("account id", accountID); err != nil {
		return err
	}
	if err := store.CheckMCPServerName(name); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM mcp_servers WHERE account_id = ? AND name = ?`, accountID, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("MCP server", name)
		}
		return nil
	})
	return writeErr("the MCP server", err)
}
