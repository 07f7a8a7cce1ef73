-- What gateways sharing a store share beyond the tables before (rate counts
-- of the shared rate limiter go in rate_counters): concurrent-execution slots,
-- the values of sessionStorage and file storage, and settings every process
-- must agree on. SQLite keeps them too, so the contract is one.

-- One row per running execution holding a slot of its account's limit of
-- concurrent executions; a process that dies leaves its rows to expire.
CREATE TABLE rate_slots (
	slot_id    TEXT PRIMARY KEY,
	account_id TEXT NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX rate_slots_account ON rate_slots (account_id, expires_at);

-- sessionStorage (scope: the session, or the execution without one) and file
-- storage (scope ''); expires_at NULL never expires.
CREATE TABLE scoped_values (
	area       TEXT NOT NULL,
	account_id TEXT NOT NULL REFERENCES accounts (id),
	scope      TEXT NOT NULL,
	key        TEXT NOT NULL,
	value      TEXT NOT NULL,
	expires_at INTEGER,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (area, account_id, scope, key)
) STRICT;
CREATE INDEX scoped_values_expires ON scoped_values (expires_at) WHERE expires_at IS NOT NULL;

-- How many keys each scope holds (expired ones included until they are
-- deleted), so the bound costs one row instead of a count.
CREATE TABLE scoped_value_usage (
	area       TEXT NOT NULL,
	account_id TEXT NOT NULL,
	scope      TEXT NOT NULL,
	keys       INTEGER NOT NULL,
	PRIMARY KEY (area, account_id, scope)
) STRICT, WITHOUT ROWID;

CREATE TABLE settings (
	name       TEXT PRIMARY KEY,
	value      BLOB NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
