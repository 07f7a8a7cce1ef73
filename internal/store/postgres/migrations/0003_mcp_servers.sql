-- MCP servers that accounts register for their sessions: command names an
-- entry of the server's allowlist, url a streamable-HTTP endpoint; exactly
-- one is set (empty string for the other).
CREATE TABLE mcp_servers (
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
	name       text COLLATE "C" NOT NULL,
	command    text NOT NULL,
	url        text NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (account_id, name)
);
