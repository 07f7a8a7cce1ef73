-- Fair leasing (queue.Message.Group): an item belongs to a group (an
-- execution's account; '' for topics without groups), and a lease takes
-- items round-robin across the groups of its topic, the group served least
-- recently first. The groups with items are found from queue_items (its
-- index on topic, grp); queue_groups holds only when each group was last
-- served, as a counter that grows with each lease (no row: never). A row is
-- written when its group is served and swept once the group has no item.
-- IF NOT EXISTS on queue_groups: a schema taken back to an earlier version
-- (the kind migration tests) applies this again.
ALTER TABLE queue_items ADD COLUMN grp TEXT NOT NULL DEFAULT '';
CREATE INDEX queue_items_group_due ON queue_items (topic, grp, visible_at, seq);
CREATE TABLE IF NOT EXISTS queue_groups (
	topic  TEXT NOT NULL,
	grp    TEXT NOT NULL,
	served INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (topic, grp)
) STRICT;
CREATE INDEX IF NOT EXISTS queue_groups_served ON queue_groups (topic, served);
