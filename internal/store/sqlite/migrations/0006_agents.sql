-- The registry of HTTP task agents (internal/agent). entry is the registry
-- entry as protocol/agenthttp encodes it: secrets only as credentialRefs
-- into the vault, never values.
CREATE TABLE agents (
	name       TEXT PRIMARY KEY,
	entry      BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;
