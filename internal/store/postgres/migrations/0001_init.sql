-- The server's state on PostgreSQL: the same tables as the SQLite store's
-- 0001_init.sql, in PostgreSQL's types. Times are timestamptz (microseconds);
-- JSON is text, kept byte for byte as it was given; binary values are bytea.
-- Ids and names compare bytewise (COLLATE "C"), so lists page in the same
-- order on every server whatever its locale, and as they do on SQLite.

CREATE TABLE accounts (
	id          text COLLATE "C" PRIMARY KEY,
	name        text NOT NULL,
	permissions text NOT NULL,
	limits      text,
	disabled    boolean NOT NULL DEFAULT false,
	created_at  timestamptz NOT NULL,
	updated_at  timestamptz NOT NULL
);

CREATE TABLE api_keys (
	id           text COLLATE "C" PRIMARY KEY,
	account_id   text COLLATE "C" NOT NULL REFERENCES accounts (id),
	hash         bytea NOT NULL UNIQUE,
	prefix       text NOT NULL,
	created_at   timestamptz NOT NULL,
	expires_at   timestamptz,
	revoked_at   timestamptz,
	last_used_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE credentials (
	id            text COLLATE "C" PRIMARY KEY,
	type          text NOT NULL,
	description   text NOT NULL,
	master_key_id text NOT NULL,
	nonce         bytea NOT NULL,
	ciphertext    bytea NOT NULL,
	created_at    timestamptz NOT NULL,
	updated_at    timestamptz NOT NULL
);

-- seq is the insertion order: list cursors are seq values. event_seq is the
-- seq of the execution's last event: appending events bumps it, which both
-- numbers the new frames and serialises concurrent appends of one execution.
CREATE TABLE executions (
	seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id          text COLLATE "C" NOT NULL UNIQUE,
	account_id  text COLLATE "C" NOT NULL REFERENCES accounts (id),
	client_id   text COLLATE "C",
	digest      text NOT NULL,
	document    bytea NOT NULL,
	input       text,
	status      text NOT NULL CHECK (status IN ('queued', 'running', 'waiting', 'success', 'failed', 'partial', 'cancelled')),
	async       boolean NOT NULL,
	session_id  text NOT NULL,
	budget_ms   bigint NOT NULL,
	result      text,
	errors      text,
	event_seq   bigint NOT NULL DEFAULT 0,
	created_at  timestamptz NOT NULL,
	started_at  timestamptz,
	finished_at timestamptz
);
CREATE UNIQUE INDEX executions_client ON executions (account_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX executions_account ON executions (account_id, seq);
CREATE INDEX executions_unfinished ON executions (seq) WHERE status IN ('queued', 'running', 'waiting');

CREATE TABLE checkpoints (
	execution_id text COLLATE "C" PRIMARY KEY REFERENCES executions (id),
	data         text NOT NULL,
	saved_at     timestamptz NOT NULL
);

CREATE TABLE events (
	execution_id text COLLATE "C" NOT NULL REFERENCES executions (id),
	seq          bigint NOT NULL,
	data         text NOT NULL,
	created_at   timestamptz NOT NULL,
	PRIMARY KEY (execution_id, seq)
);

-- id rises in the order records were appended (within one append, in the
-- order given).
CREATE TABLE audit (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	time       timestamptz NOT NULL,
	request_id text NOT NULL,
	account_id text COLLATE "C" NOT NULL,
	method     text NOT NULL,
	operation  text NOT NULL,
	decision   text NOT NULL,
	latency_ms bigint NOT NULL,
	status     text NOT NULL,
	error_code text NOT NULL,
	details    text
);
CREATE INDEX audit_time ON audit (time);
CREATE INDEX audit_account ON audit (account_id, id);

CREATE TABLE rate_counters (
	account_id   text COLLATE "C" NOT NULL,
	kind         text COLLATE "C" NOT NULL,
	window_start timestamptz NOT NULL,
	window_end   timestamptz NOT NULL,
	count        bigint NOT NULL,
	PRIMARY KEY (account_id, kind, window_start)
);
CREATE INDEX rate_counters_end ON rate_counters (window_end);

CREATE TABLE kv (
	account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
	key        text COLLATE "C" NOT NULL,
	value      text NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (account_id, key)
);

-- How many keys each account holds in kv. PutKV of a new key takes a slot
-- here first (its row lock serialises the account's new keys, so the bound
-- holds under concurrency from many processes); DeleteKV gives it back.
CREATE TABLE kv_usage (
	account_id text COLLATE "C" PRIMARY KEY REFERENCES accounts (id),
	keys       integer NOT NULL
);
