-- A2A push notification configs (internal/a2aserver): a webhook an account
-- set on one of its tasks. token_ref and credentials_ref name vault
-- entries (the secrets are sealed there, never here; '' for none). sent,
-- sent_state and done are the sender's durable cursor, claim_until its
-- lease on the next notification (NULL: none), so that each notification
-- is sent by one gateway of those sharing the database, and survives
-- restarts.
CREATE TABLE IF NOT EXISTS a2a_push_configs (
	seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id      text COLLATE "C" NOT NULL REFERENCES accounts (id),
	task_id         text COLLATE "C" NOT NULL,
	id              text COLLATE "C" NOT NULL,
	url             text NOT NULL,
	token_ref       text COLLATE "C" NOT NULL DEFAULT '',
	auth_scheme     text NOT NULL DEFAULT '',
	credentials_ref text COLLATE "C" NOT NULL DEFAULT '',
	sent            bigint NOT NULL DEFAULT 0,
	sent_state      text NOT NULL DEFAULT '',
	done            integer NOT NULL DEFAULT 0,
	claim_until     timestamptz,
	created_at      timestamptz NOT NULL,
	UNIQUE (account_id, task_id, id)
);
-- The senders' sweep reads the configs still to notify, by seq.
CREATE INDEX IF NOT EXISTS a2a_push_configs_pending ON a2a_push_configs (seq) WHERE done = 0;
