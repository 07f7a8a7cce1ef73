-- The registry of HTTP task agents (internal/agent). entry is the registry
-- entry as protocol/agenthttp encodes it: secrets only as credentialRefs
-- into the vault, never values. Kept as bytes, not jsonb, so an entry
-- reads back exactly as it was written.
CREATE TABLE agents (
	name       TEXT COLLATE "C" PRIMARY KEY,
	entry      BYTEA NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
