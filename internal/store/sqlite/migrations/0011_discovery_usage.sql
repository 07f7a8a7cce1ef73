-- Discovery usage: the words (analyzed terms) an account searched with when
-- the search was answered by an entry (kind, entry_id), one row per entry,
-- word and account, so an account counts once however often it says so. at
-- (microseconds since the epoch) is set on insert and moved forward when the
-- row is seen again; rows not seen since a time are pruned by it. Rows
-- reference their account as kv's do (accounts are disabled, never deleted).
-- IF NOT EXISTS: a schema taken back to an earlier version (the kind
-- migration tests delete the version rows from 0008 on) applies this again.
CREATE TABLE IF NOT EXISTS discovery_usage (
	kind       TEXT NOT NULL,
	entry_id   TEXT NOT NULL,
	term       TEXT NOT NULL,
	account_id TEXT NOT NULL REFERENCES accounts (id),
	at         INTEGER NOT NULL,
	PRIMARY KEY (kind, entry_id, term, account_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS discovery_usage_at ON discovery_usage (at);
