package pgqueue

import (
	"context"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

var _ queue.Depther = (*Queue)(nil)

// Depth implements queue.Depther: a count of the index (topic, ...) that
// stops at max.
func (q *Queue) Depth(ctx context.Context, topic string, max int) (int, error) {
	if err := q.check(); err != nil {
		return 0, err
	}
	var n int
	err := q.db.Read(ctx, func(c postgres.Querier) error {
		return c.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM queue_items WHERE topic = $1 LIMIT $2) AS held`, topic, max).Scan(&n)
	})
	if err != nil {
		return 0, postgres.ReadError("the queue's items", err)
	}
	return n, nil
}
