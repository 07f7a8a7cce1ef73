package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"

	"github.com/sluicehq/sluice/internal/store"
)

// AddMCPServer implements store.MCPServers. lockAccount makes the look-up,
// the count and the insert one step across processes.
func (s *Store) AddMCPServer(ctx context.Context, m store.MCPServer) (store.MCPServer, error) {
	if err := store.CheckMCPServer(m); err != nil {
		return store.MCPServer{}, err
	}
	auth, err := encodeMCPAuth(m.Auth)
	if err != nil {
		return store.MCPServer{}, err
	}
	now := s.b.Now()
	var out store.MCPServer
	err = s.b.Write(ctx, func(tx Querier) error {
		out = m
		out.CreatedAt = now
		if err := s.lockAccount(ctx, tx, m.AccountID); err != nil {
			return err
		}
		var stored store.MCPServer
		var storedAuth string
		err := tx.QueryRow(ctx, `SELECT command, url, auth, created_at FROM mcp_servers WHERE account_id = ? AND name = ?`,
			m.AccountID, m.Name).Scan(&stored.Command, &stored.URL, &storedAuth, s.b.ScanTime(&stored.CreatedAt))
		switch {
		case err == nil && stored.Command == m.Command && stored.URL == m.URL && storedAuth == auth:
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
		_, err = tx.Exec(ctx, `INSERT INTO mcp_servers (account_id, name, command, url, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			m.AccountID, m.Name, m.Command, m.URL, auth, s.b.Time(now))
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
		var auth string
		if err := r.Scan(&m.Name, &m.Command, &m.URL, &auth, s.b.ScanTime(&m.CreatedAt)); err != nil {
			return m, err
		}
		m.Auth, err = decodeMCPAuth(auth, m.Name)
		return m, err
	}, `SELECT name, command, url, auth, created_at FROM mcp_servers WHERE account_id = ? ORDER BY name`, accountID)
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

// encodeMCPAuth is the auth column: ” for none, else JSON (map keys
// sorted, so the same auth is the same text).
func encodeMCPAuth(a store.MCPServerAuth) (string, error) {
	if a.IsZero() {
		return "", nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return "", fault.New(fault.Invalid, "auth: cannot be encoded").WithCause(err)
	}
	return string(b), nil
}

func decodeMCPAuth(s, name string) (store.MCPServerAuth, error) {
	var a store.MCPServerAuth
	if s == "" {
		return a, nil
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return a, fault.New(fault.Internal, "the stored auth of MCP server %q cannot be read", name).WithCause(err)
	}
	return a, nil
}
