package pgqueue

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

// Fair leasing (queue.Message.Group), as in the local queue (whose fair.go
// says why the groups are walked on the index): a Lease looks at the
// groups of its topic that have a visible item, least recently
// served first (ties: the group whose oldest visible item is older), takes
// up to n of each group's oldest visible items that no other consumer holds
// locked, interleaves them (queue.Interleave), and marks each group that gave
// an item served with the topic's next counter values. Consumers in several
// processes leasing at the same moment may pick the same group; SKIP LOCKED
// gives them different items of it, so fairness across processes is as
// exact as their leases are apart.

// leased is a row picked for a lease.
type leased struct {
	seq int64
	it  queue.Item
}

// dueGroups are up to n groups of topic with a visible item, in the order
// they are to be served.
func dueGroups(ctx context.Context, tx postgres.Tx, topic string, now time.Time, n int) ([]string, error) {
	rows, err := tx.Query(ctx, `WITH RECURSIVE g(grp) AS (
			SELECT MIN(grp) FROM queue_items WHERE topic = $1
			UNION ALL
			SELECT (SELECT MIN(grp) FROM queue_items WHERE topic = $1 AND grp > g.grp) FROM g WHERE g.grp IS NOT NULL)
		SELECT grp FROM (
			SELECT g.grp,
				COALESCE((SELECT s.served FROM queue_groups s WHERE s.topic = $1 AND s.grp = g.grp), 0) AS served,
				(SELECT q.seq FROM queue_items q WHERE q.topic = $1 AND q.grp = g.grp AND q.visible_at <= $2
					ORDER BY q.visible_at, q.seq LIMIT 1) AS oldest
			FROM g WHERE g.grp IS NOT NULL) s
		WHERE oldest IS NOT NULL ORDER BY served, oldest LIMIT $3`, topic, now, n)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// dueItems are up to n visible items of one group that nobody holds locked,
// oldest first, locked for this lease.
func dueItems(ctx context.Context, tx postgres.Tx, topic, grp string, now time.Time, n int) ([]leased, error) {
	rows, err := tx.Query(ctx, `SELECT seq, id, payload, attempts, enqueued_at FROM queue_items
		WHERE topic = $1 AND grp = $2 AND visible_at <= $3 ORDER BY visible_at, seq LIMIT $4
		FOR UPDATE SKIP LOCKED`, topic, grp, now, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []leased
	for rows.Next() {
		l := leased{it: queue.Item{Group: grp}}
		if err := rows.Scan(&l.seq, &l.it.ID, &l.it.Payload, &l.it.Attempts, &l.it.EnqueuedAt); err != nil {
			return nil, err
		}
		l.it.EnqueuedAt = l.it.EnqueuedAt.UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}

// markServed records that groups[served[0]], groups[served[1]], ... were
// served, in that order, after every group served before. The rows are
// updated in the order of their names, so two leases never wait on each
// other's rows in a cycle.
func markServed(ctx context.Context, tx postgres.Tx, topic string, groups []string, served []int) error {
	if len(served) == 0 {
		return nil
	}
	var top int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(served), 0) FROM queue_groups WHERE topic = $1`, topic).Scan(&top); err != nil {
		return err
	}
	type mark struct {
		grp string
		at  int64
	}
	marks := make([]mark, len(served))
	for k, g := range served {
		marks[k] = mark{groups[g], top + int64(k) + 1}
	}
	slices.SortFunc(marks, func(a, b mark) int {
		switch {
		case a.grp < b.grp:
			return -1
		case a.grp > b.grp:
			return 1
		}
		return 0
	})
	for _, m := range marks {
		if _, err := tx.Exec(ctx, `INSERT INTO queue_groups (topic, grp, served) VALUES ($1, $2, $3)
			ON CONFLICT (topic, grp) DO UPDATE SET served = excluded.served`, topic, m.grp, m.at); err != nil {
			return err
		}
	}
	return nil
}

// OthersWaiting implements queue.Backlog: two range scans of the index
// (topic, grp, visible_at, seq), one each side of the group.
func (q *Queue) OthersWaiting(ctx context.Context, topic, group string) (bool, error) {
	if err := q.check(); err != nil {
		return false, err
	}
	var waiting bool
	err := q.db.Read(ctx, func(c postgres.Querier) error {
		return c.QueryRow(ctx, `SELECT EXISTS(SELECT 1 FROM queue_items WHERE topic = $1 AND grp < $2 AND visible_at <= $3)
			OR EXISTS(SELECT 1 FROM queue_items WHERE topic = $1 AND grp > $2 AND visible_at <= $3)`, topic, group, q.now()).Scan(&waiting)
	})
	if err != nil {
		return false, postgres.ReadError("the queue's items", err)
	}
	return waiting, nil
}
