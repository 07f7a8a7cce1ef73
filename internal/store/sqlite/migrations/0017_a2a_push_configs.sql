-- A2A push notification configs (internal/a2aserver): a webhook an account
-- set on one of its tasks. token_ref and credentials_ref name vault
-- entries (the secrets are sealed there, never here; '' for none). sent,
-- sent_state and done are the sender's durable cursor, claim_until its
-- lease on the next notification (NULL: none), so that each notification
-- is sent by one gateway and survives restarts.
CREATE TABLE a2a_push_configs (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id      TEXT NOT NULL REFERENCES accounts (id),
	task_id         TEXT NOT NULL,
	id              TEXT NOT NULL,
	url             TEXT NOT NULL,
	token_ref       TEXT NOT NULL DEFAULT '',
	auth_scheme     TEXT NOT NULL DEFAULT '',
	credentials_ref TEXT NOT NULL DEFAULT '',
	sent            INTEGER NOT NULL DEFAULT 0,
	sent_state      TEXT NOT NULL DEFAULT '',
	done            INTEGER NOT NULL DEFAULT 0,
	claim_until     INTEGER,
	created_at      INTEGER NOT NULL,
	UNIQUE (account_id, task_id, id)
) STRICT;
-- The senders' sweep reads the configs still to notify, by seq.
CREATE INDEX a2a_push_configs_pending ON a2a_push_configs (seq) WHERE done = 0;
