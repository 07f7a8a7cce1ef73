-- An item may carry an expiry (queue.Message.ExpiresAt): once it has passed
-- and nobody holds the item, the queue's sweep deletes it unread. Agent
-- results get one, so the results of a gateway that is gone (sent to its own
-- reply topic, which nobody reads any more) do not stay in the table forever.
-- NULL: the item never expires (tasks, executions).
ALTER TABLE queue_items ADD COLUMN expires_at timestamptz;
CREATE INDEX queue_items_expiry ON queue_items (expires_at) WHERE expires_at IS NOT NULL;
