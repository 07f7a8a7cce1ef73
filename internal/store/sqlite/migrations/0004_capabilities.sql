-- The A2S capability registry. capabilities holds one row per NS/ID with its
-- latest version (store.LaterVersion, decided when a version is published)
-- and its count of versions; capability_versions every version ever
-- published, never changed. seq is the publish order.
CREATE TABLE capabilities (
	namespace TEXT NOT NULL,
	id        TEXT NOT NULL,
	latest    TEXT NOT NULL,
	versions  INTEGER NOT NULL,
	PRIMARY KEY (namespace, id)
) STRICT;

CREATE TABLE capability_versions (
	seq          INTEGER PRIMARY KEY,
	namespace    TEXT NOT NULL,
	id           TEXT NOT NULL,
	version      TEXT NOT NULL,
	checksum     TEXT NOT NULL,
	type         TEXT NOT NULL,
	level        TEXT NOT NULL,
	audit_status TEXT NOT NULL,
	description  TEXT NOT NULL,
	format       TEXT NOT NULL,
	document     BLOB NOT NULL,
	published_by TEXT NOT NULL,
	published_at INTEGER NOT NULL,
	UNIQUE (namespace, id, version),
	FOREIGN KEY (namespace, id) REFERENCES capabilities (namespace, id)
) STRICT;
