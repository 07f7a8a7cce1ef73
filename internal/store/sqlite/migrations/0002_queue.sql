-- The local queue (internal/queue/local): one row per item until it is acked.
-- visible_at is when the item may be leased next: its enqueue time (or later,
-- when delayed), the end of its lease while leased, or now + delay after a nack.
-- An expired lease is therefore simply a visible item again.
CREATE TABLE queue_items (
	seq         INTEGER PRIMARY KEY,
	topic       TEXT NOT NULL,
	id          TEXT NOT NULL,
	payload     BLOB NOT NULL,
	attempts    INTEGER NOT NULL DEFAULT 0,
	enqueued_at INTEGER NOT NULL,
	visible_at  INTEGER NOT NULL,
	owner       TEXT,
	token       TEXT,
	UNIQUE (topic, id)
) STRICT;
CREATE INDEX queue_items_due ON queue_items (topic, visible_at, seq);
