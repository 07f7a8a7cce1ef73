-- The queue on PostgreSQL (internal/queue/pgqueue): one row per item until it
-- is acked. visible_at is when the item may be leased next: its enqueue time
-- (or later, when delayed), the end of its lease while leased, or now + delay
-- after a nack. An expired lease is therefore simply a visible item again.
-- Leases take rows with FOR UPDATE SKIP LOCKED, so consumers in many
-- processes never wait on each other's rows.
CREATE TABLE queue_items (
	seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	topic       text COLLATE "C" NOT NULL,
	id          text COLLATE "C" NOT NULL,
	payload     bytea NOT NULL,
	attempts    integer NOT NULL DEFAULT 0,
	enqueued_at timestamptz NOT NULL,
	visible_at  timestamptz NOT NULL,
	owner       text,
	token       text,
	UNIQUE (topic, id)
);
CREATE INDEX queue_items_due ON queue_items (topic, visible_at, seq);
