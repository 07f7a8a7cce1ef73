-- MCP servers that accounts register for their sessions: command names an
-- entry of the server's allowlist, url a streamable-HTTP endpoint; exactly
-- one is set (empty string for the other).
CREATE TABLE mcp_servers (
	account_id TEXT NOT NULL REFERENCES accounts (id),
	name       TEXT NOT NULL,
	command    TEXT NOT NULL,
	url        TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (account_id, name)
) STRICT;
