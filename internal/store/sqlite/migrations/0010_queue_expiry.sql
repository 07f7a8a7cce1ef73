-- An item may carry an expiry (queue.Message.ExpiresAt, microseconds since
-- the epoch): once it has passed and nobody holds the item, the queue's sweep
-- deletes it unread. Agent results get one, so results sent to a reply topic
-- nobody reads any more do not stay in the table forever. NULL: the item
-- never expires (tasks, executions).
ALTER TABLE queue_items ADD COLUMN expires_at INTEGER;
CREATE INDEX queue_items_expiry ON queue_items (expires_at) WHERE expires_at IS NOT NULL;
