-- The server's state. Times are INTEGER microseconds since the Unix epoch (UTC);
-- JSON is TEXT; every table is STRICT so a wrong type is an error, not a surprise.

CREATE TABLE accounts (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	permissions TEXT NOT NULL,
	limits      TEXT,
	disabled    INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
	id           TEXT PRIMARY KEY,
	account_id   TEXT NOT NULL REFERENCES accounts (id),
	hash         BLOB NOT NULL UNIQUE,
	prefix       TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	revoked_at   INTEGER,
	last_used_at INTEGER
) STRICT;
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE credentials (
	id            TEXT PRIMARY KEY,
	type          TEXT NOT NULL,
	description   TEXT NOT NULL,
	master_key_id TEXT NOT NULL,
	nonce         BLOB NOT NULL,
	ciphertext    BLOB NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
) STRICT;

-- seq is the insertion order: list cursors are seq values.
CREATE TABLE executions (
	seq         INTEGER PRIMARY KEY,
	id          TEXT NOT NULL UNIQUE,
	account_id  TEXT NOT NULL REFERENCES accounts (id),
	client_id   TEXT,
	digest      TEXT NOT NULL,
	document    BLOB NOT NULL,
	input       TEXT,
	status      TEXT NOT NULL,
	async       INTEGER NOT NULL,
	session_id  TEXT NOT NULL,
	budget_ms   INTEGER NOT NULL,
	result      TEXT,
	errors      TEXT,
	created_at  INTEGER NOT NULL,
	started_at  INTEGER,
	finished_at INTEGER
) STRICT;
CREATE UNIQUE INDEX executions_client ON executions (account_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX executions_account ON executions (account_id, seq);
CREATE INDEX executions_unfinished ON executions (seq) WHERE status IN ('queued', 'running', 'waiting');

CREATE TABLE checkpoints (
	execution_id TEXT PRIMARY KEY REFERENCES executions (id),
	data         TEXT NOT NULL,
	saved_at     INTEGER NOT NULL
) STRICT;

CREATE TABLE events (
	execution_id TEXT NOT NULL REFERENCES executions (id),
	seq          INTEGER NOT NULL,
	data         TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	PRIMARY KEY (execution_id, seq)
) STRICT;

CREATE TABLE audit (
	id         INTEGER PRIMARY KEY,
	time       INTEGER NOT NULL,
	request_id TEXT NOT NULL,
	account_id TEXT NOT NULL,
	method     TEXT NOT NULL,
	operation  TEXT NOT NULL,
	decision   TEXT NOT NULL,
	latency_ms INTEGER NOT NULL,
	status     TEXT NOT NULL,
	error_code TEXT NOT NULL,
	details    TEXT
) STRICT;
CREATE INDEX audit_time ON audit (time);
CREATE INDEX audit_account ON audit (account_id, id);

CREATE TABLE rate_counters (
	account_id   TEXT NOT NULL,
	kind         TEXT NOT NULL,
	window_start INTEGER NOT NULL,
	window_end   INTEGER NOT NULL,
	count        INTEGER NOT NULL,
	PRIMARY KEY (account_id, kind, window_start)
) STRICT, WITHOUT ROWID;
CREATE INDEX rate_counters_end ON rate_counters (window_end);

CREATE TABLE kv (
	account_id TEXT NOT NULL REFERENCES accounts (id),
	key        TEXT NOT NULL,
	value      TEXT NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (account_id, key)
) STRICT;

-- How many keys each account holds in kv, kept by PutKV and DeleteKV so the
-- per-account bound costs one row read instead of a count.
CREATE TABLE kv_usage (
	account_id TEXT PRIMARY KEY REFERENCES accounts (id),
	keys       INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
