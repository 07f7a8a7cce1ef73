package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

// AddMCPServer implements store.MCPServers. The account's row lock makes the
// look-up, the count and the insert one step across processes.
func (db *DB) AddMCPServer(ctx context.Context, s store.MCPServer) (store.MCPServer, error) {
	if err := store.CheckMCPServer(s); err != nil {
		return store.MCPServer{}, err
	}
	now := db.now()
	var out store.MCPServer
	err := db.Write(ctx, func(tx pgx.Tx) error {
		out = s
		out.CreatedAt = now
		if err := lockAccount(ctx, tx, s.AccountID); err != nil {
			return err
		}
		var stored store.MCPServer
		err := tx.QueryRow(ctx, `SELECT command, url, created_at FROM mcp_servers WHERE account_id = $1 AND name = $2`,
			s.AccountID, s.Name).Scan(&stored.Command, &stored.URL, &stored.CreatedAt)
		switch {
		case err == nil && stored.Command == s.Command && stored.URL == s.URL:
			out.CreatedAt = utc(stored.CreatedAt)
			return nil
		case err == nil:
			return store.MCPServerTaken(s.Name)
		case !isNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM mcp_servers WHERE account_id = $1`, s.AccountID).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxMCPServersPerAccount {
			return store.MCPServersFull()
		}
		_, err = tx.Exec(ctx, `INSERT INTO mcp_servers (account_id, name, command, url, created_at) VALUES ($1, $2, $3, $4, $5)`,
			s.AccountID, s.Name, s.Command, s.URL, now)
		if isForeignKey(err) {
			return notFound("account", s.AccountID)
		}
		return err
	})
	if err != nil {
		return store.MCPServer{}, writeErr("the MCP server", err)
	}
	return out, nil
}

// ListMCPServers implements store.MCPServers.
func (db *DB) ListMCPServers(ctx context.Context, accountID string) ([]store.MCPServer, error) {
	if err := store.CheckID("account id", accountID); err != nil {
		return nil, err
	}
	out := []store.MCPServer{}
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT name, command, url, created_at FROM mcp_servers WHERE account_id = $1 ORDER BY name`, accountID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			s := store.MCPServer{AccountID: accountID}
			if err := rows.Scan(&s.Name, &s.Command, &s.URL, &s.CreatedAt); err != nil {
				return err
			}
			s.CreatedAt = utc(s.CreatedAt)
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
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
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM mcp_servers WHERE account_id = $1 AND name = $2`, accountID, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("MCP server", name)
		}
		return nil
	})
	return writeErr("the MCP server", err)
}
