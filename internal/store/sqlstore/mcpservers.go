package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// AddMCPServer implements store.MCPServers. lockAccount makes the look-up,
// the count and the insert one step across processes.
func (s *Store) AddMCPServer(ctx context.Context, m store.MCPServer) (store.MCPServer, error) {
	if err := store.CheckMCPServer(m); err != nil {
		return store.MCPServer{}, err
	}
	now := s.b.Now()
	var out store.MCPServer
	err := s.b.Write(ctx, func(tx Querier) error {
		out = m
		out.CreatedAt = now
		if err := s.lockAccount(ctx, tx, m.AccountID); err != nil {
			return err
		}
		var stored store.MCPServer
		err := tx.QueryRow(ctx, `SELECT command, url, created_at FROM mcp_servers WHERE account_id = ? AND name = ?`,
			m.AccountID, m.Name).Scan(&stored.Command, &stored.URL, s.b.ScanTime(&stored.CreatedAt))
		switch {
		case err == nil && stored.Command == m.Command && stored.URL == m.URL:
			out.CreatedAt = stored.CreatedAt
			return nil
		case err == nil:
			return store.MCPServerTaken(m.Name)
		case !s.b.IsNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM mcp_servers WHERE account_id = ?`, m.AccountID).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxMCPServersPerAccount {
			return store.MCPServersFull()
		}
		_, err = tx.Exec(ctx, `INSERT INTO mcp_servers (account_id, name, command, url, created_at) VALUES (?, ?, ?, ?, ?)`,
			m.AccountID, m.Name, m.Command, m.URL, s.b.Time(now))
		if s.b.IsForeignKey(err) {
			return notFound("account", m.AccountID)
		}
		return err
	})
	if err != nil {
		return store.MCPServer{}, s.b.WriteErr("the MCP server", err)
	}
	return out, nil
}

// ListMCPServers implements store.MCPServers.
func (s *Store) ListMCPServers(ctx context.Context, accountID string) ([]store.MCPServer, error) {
	if err := store.CheckID("account id", accountID); err != nil {
		return nil, err
	}
	out, err := collect(ctx, s, "the MCP servers", []store.MCPServer{}, func(r Row) (m store.MCPServer, err error) {
		m.AccountID = accountID
		return m, r.Scan(&m.Name, &m.Command, &m.URL, s.b.ScanTime(&m.CreatedAt))
	}, `SELECT name, command, url, created_at FROM mcp_servers WHERE account_id = ? ORDER BY name`, accountID)
	return out, err
}

// DeleteMCPServer implements store.MCPServers.
func (s *Store) DeleteMCPServer(ctx context.Context, accountID, name string) error {
	if err := store.CheckID("account id", accountID); err != nil {
		return err
	}
	if err := store.CheckMCPServerName(name); err != nil {
		return err
	}
	return s.writeOne(ctx, "the MCP server", notFound("MCP server", name), `DELETE FROM mcp_servers WHERE account_id = ? AND name = ?`, accountID, name)
}
