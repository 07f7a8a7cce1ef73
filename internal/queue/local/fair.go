package local

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// Fair leasing (queue.Message.Group): a Lease looks at the groups of its
// topic that have a visible item, least recently served first (ties: the
// group whose oldest visible item is older), takes up to n of each group's
// oldest visible items, and interleaves them (queue.Interleave). Each
// group that gave an item is then marked served with the topic's next
// counter values, in the order it was served. A few index looks per group
// and one per item: a topic of one group costs what the plain oldest-first
// lease did, plus one row of queue_groups. Which items are visible never
// depends on queue_groups: a group without a row counts as never served.

// groupsDue lists the groups of topic ?1 with an item visible at ?2, in
// the order to serve them, at most ?3: the groups are walked on the index
// (topic, grp, ...) one distinct value at a time, so the cost is the
// number of groups, not of items.
const groupsDue = `WITH RECURSIVE g(grp) AS (
		SELECT MIN(grp) FROM queue_items WHERE topic = ?1
		UNION ALL
		SELECT (SELECT MIN(grp) FROM queue_items WHERE topic = ?1 AND grp > g.grp) FROM g WHERE g.grp IS NOT NULL)
	SELECT grp FROM (
		SELECT g.grp,
			COALESCE((SELECT s.served FROM queue_groups s WHERE s.topic = ?1 AND s.grp = g.grp), 0) AS served,
			(SELECT q.seq FROM queue_items q WHERE q.topic = ?1 AND q.grp = g.grp AND q.visible_at <= ?2
				ORDER BY q.visible_at, q.seq LIMIT 1) AS oldest
		FROM g WHERE g.grp IS NOT NULL)
	WHERE oldest IS NOT NULL ORDER BY served, oldest LIMIT ?3`

// leased is a row picked for a lease.
type leased struct {
	seq int64
	it  queue.Item
}

// dueGroups are up to n groups of topic with a visible item, in the order
// they are to be served.
func dueGroups(tx *sqlite.Tx, topic string, now int64, n int) ([]string, error) {
	rows, err := tx.Query(groupsDue, topic, now, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var groups []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, rows.Err()
}

// dueItems are up to n visible items of one group, oldest first.
func dueItems(tx *sqlite.Tx, topic, grp string, now int64, n int) ([]leased, error) {
	rows, err := tx.Query(`SELECT seq, id, payload, attempts, enqueued_at FROM queue_items
		WHERE topic = ? AND grp = ? AND visible_at <= ? ORDER BY visible_at, seq LIMIT ?`, topic, grp, now, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []leased
	for rows.Next() {
		l := leased{it: queue.Item{Group: grp}}
		var enq int64
		if err := rows.Scan(&l.seq, &l.it.ID, &l.it.Payload, &l.it.Attempts, &enq); err != nil {
			return nil, err
		}
		l.it.EnqueuedAt = time.UnixMicro(enq).UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}

// markServed records that groups[served[0]], groups[served[1]], ... were
// served, in that order, after every group served before.
func markServed(tx *sqlite.Tx, topic string, groups []string, served []int) error {
	if len(served) == 0 {
		return nil
	}
	var top int64
	if err := tx.QueryRow(`SELECT COALESCE(MAX(served), 0) FROM queue_groups WHERE topic = ?`, topic).Scan(&top); err != nil {
		return err
	}
	for k, g := range served {
		if _, err := tx.Exec(`INSERT INTO queue_groups (topic, grp, served) VALUES (?, ?, ?)
			ON CONFLICT (topic, grp) DO UPDATE SET served = excluded.served`, topic, groups[g], top+int64(k)+1); err != nil {
			return err
		}
	}
	return nil
}

// othersWaiting asks whether a group other than ?2 has a visible item: two
// range scans of the index (topic, grp, visible_at, seq), one each side of
// the group, reading the index alone.
const othersWaiting = `SELECT EXISTS(SELECT 1 FROM queue_items WHERE topic = ?1 AND grp < ?2 AND visible_at <= ?3)
	OR EXISTS(SELECT 1 FROM queue_items WHERE topic = ?1 AND grp > ?2 AND visible_at <= ?3)`

// OthersWaiting implements queue.Backlog.
func (q *Queue) OthersWaiting(ctx context.Context, topic, group string) (bool, error) {
	if err := q.check(); err != nil {
		return false, err
	}
	var waiting bool
	if err := q.db.ReadRow(ctx, othersWaiting, topic, group, q.clock.Now().UnixMicro()).Scan(&waiting); err != nil {
		return false, storeErr(err)
	}
	return waiting, nil
}
