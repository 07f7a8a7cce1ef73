package local

import (
	"context"

	"github.com/sluicehq/sluice/internal/queue"
)

var _ queue.Depther = (*Queue)(nil)

// Depth implements queue.Depther: a count of the index (topic, ...) that
// stops at max.
func (q *Queue) Depth(ctx context.Context, topic string, max int) (int, error) {
	if err := q.check(); err != nil {
		return 0, err
	}
	var n int
	if err := q.db.ReadRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM queue_items WHERE topic = ?1 LIMIT ?2)`, topic, max).Scan(&n); err != nil {
		return 0, storeErr(err)
	}
	return n, nil
}
