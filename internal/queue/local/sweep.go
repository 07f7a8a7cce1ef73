package local

import (
	"context"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

var _ queue.Sweeper = (*Queue)(nil)

// sweepBatch is queue.SweepBatch; tests make it small.
var sweepBatch = queue.SweepBatch

// Sweep implements queue.Sweeper: it deletes the expired items nobody holds
// (visible_at not in the future: never leased, or their lease ran out), in
// batches. It looks first with a read, so the minutely sweep that finds
// nothing costs no write. Then it forgets the groups left without items.
func (q *Queue) Sweep(ctx context.Context) (int64, error) {
	n, err := q.sweepItems(ctx)
	if err != nil {
		return n, err
	}
	return n, q.sweepGroups(ctx)
}

// emptyGroup selects the queue_groups rows without an item.
const emptyGroup = `NOT EXISTS (SELECT 1 FROM queue_items q WHERE q.topic = queue_groups.topic AND q.grp = queue_groups.grp)`

// sweepGroups deletes the fairness rows of groups that have no item left
// (a group that gets one again starts as never served, which is fair: it
// had nothing waiting).
func (q *Queue) sweepGroups(ctx context.Context) error {
	var found int
	if err := q.db.ReadRow(ctx, `SELECT EXISTS (SELECT 1 FROM queue_groups WHERE `+emptyGroup+`)`).Scan(&found); err != nil {
		return storeErr(err)
	}
	if found == 0 {
		return nil
	}
	return storeErr(q.db.Write(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`DELETE FROM queue_groups WHERE ` + emptyGroup)
		return err
	}))
}

func (q *Queue) sweepItems(ctx context.Context) (int64, error) {
	if err := q.check(); err != nil {
		return 0, err
	}
	const due = `expires_at <= ? AND visible_at <= ?`
	var total int64
	for {
		now := q.now()
		var found int
		if err := q.db.ReadRow(ctx, `SELECT EXISTS (SELECT 1 FROM queue_items WHERE `+due+`)`, now, now).Scan(&found); err != nil {
			return total, storeErr(err)
		}
		if found == 0 {
			return total, nil
		}
		var n int64
		err := q.db.Write(ctx, func(tx *sqlite.Tx) error {
			res, err := tx.Exec(`DELETE FROM queue_items WHERE seq IN (
				SELECT seq FROM queue_items WHERE `+due+` ORDER BY expires_at LIMIT ?)`, now, now, sweepBatch)
			if err != nil {
				return err
			}
			n, _ = res.RowsAffected()
			return nil
		})
		if err != nil {
			return total, storeErr(err)
		}
		total += n
		if n < int64(sweepBatch) {
			return total, nil
		}
	}
}
