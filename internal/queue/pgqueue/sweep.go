package pgqueue

import (
	"context"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

var _ queue.Sweeper = (*Queue)(nil)

// sweepBatch is queue.SweepBatch; tests make it small.
var sweepBatch = queue.SweepBatch

// Sweep implements queue.Sweeper: it deletes the expired items nobody holds
// (visible_at not in the future: never leased, or their lease ran out), in
// batches. Every process sweeps; SKIP LOCKED keeps two sweeps, or a sweep
// and a Lease, from waiting on each other's rows (a row a Lease is taking
// right now is left to the next sweep).
func (q *Queue) Sweep(ctx context.Context) (int64, error) {
	if err := q.check(); err != nil {
		return 0, err
	}
	var total int64
	for {
		now := q.now()
		var n int64
		err := q.db.Write(ctx, func(tx postgres.Tx) error {
			tag, err := tx.Exec(ctx, `WITH gone AS (
					SELECT seq FROM queue_items
					WHERE expires_at <= $1 AND visible_at <= $1
					ORDER BY expires_at LIMIT $2
					FOR UPDATE SKIP LOCKED)
				DELETE FROM queue_items q USING gone WHERE q.seq = gone.seq`, now, sweepBatch)
			n = tag.RowsAffected()
			return err
		})
		if err != nil {
			return total, postgres.WriteError("the queue's expired items", err)
		}
		total += n
		if n < int64(sweepBatch) {
			return total, q.sweepGroups(ctx)
		}
	}
}

// sweepGroups deletes the fairness rows of groups that have no item left (a
// group that gets one again starts as never served, which is fair: it had
// nothing waiting). Rows a Lease holds locked are left to the next sweep;
// a group whose row goes while its first item is being enqueued only
// counts as never served, which changes no item's visibility.
func (q *Queue) sweepGroups(ctx context.Context) error {
	err := q.db.Write(ctx, func(tx postgres.Tx) error {
		_, err := tx.Exec(ctx, `WITH gone AS (
				SELECT topic, grp FROM queue_groups g WHERE NOT EXISTS
					(SELECT 1 FROM queue_items q WHERE q.topic = g.topic AND q.grp = g.grp)
				FOR UPDATE SKIP LOCKED)
			DELETE FROM queue_groups g USING gone WHERE g.topic = gone.topic AND g.grp = gone.grp`)
		return err
	})
	if err != nil {
		return postgres.WriteError("the queue's empty groups", err)
	}
	return nil
}
