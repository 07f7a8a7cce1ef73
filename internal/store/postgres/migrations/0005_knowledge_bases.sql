-- Knowledge bases: OpenAPI documents (API entries) and free text that agents
-- discover. The discovery index is built from them.
CREATE TABLE knowledge_bases (
	name       TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	format     TEXT NOT NULL,
	document   BYTEA NOT NULL,
	checksum   TEXT NOT NULL,
	created_by TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
