-- The A2S capability registry, as the SQLite store's 0004_capabilities.sql.
-- capabilities holds one row per NS/ID with its latest version
-- (store.LaterVersion, decided when a version is published) and its count of
-- versions; its row lock serialises the publishes of one capability across
-- processes. capability_versions holds every version ever published, never
-- changed; seq is the publish order. Namespaces and ids compare bytewise, so
-- a namespace prefix is a range ('/' < '0').
CREATE TABLE capabilities (
	namespace text COLLATE "C" NOT NULL,
	id        text COLLATE "C" NOT NULL,
	latest    text COLLATE "C" NOT NULL,
	versions  integer NOT NULL,
	PRIMARY KEY (namespace, id)
);

CREATE TABLE capability_versions (
	seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	namespace    text COLLATE "C" NOT NULL,
	id           text COLLATE "C" NOT NULL,
	version      text COLLATE "C" NOT NULL,
	checksum     text NOT NULL,
	type         text NOT NULL,
	level        text NOT NULL,
	audit_status text NOT NULL,
	description  text NOT NULL,
	format       text NOT NULL,
	document     bytea NOT NULL,
	published_by text NOT NULL,
	published_at timestamptz NOT NULL,
	UNIQUE (namespace, id, version),
	FOREIGN KEY (namespace, id) REFERENCES capabilities (namespace, id)
);
