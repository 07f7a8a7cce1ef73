-- How sluice authenticates to an MCP server registered by URL: JSON naming
-- vault credentials only (headers and OAuth client credentials), never a
-- value; '' for none, as every registration written before.
ALTER TABLE mcp_servers ADD COLUMN IF NOT EXISTS auth text NOT NULL DEFAULT '';
