package pgqueue

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Why notifications are sent after the write, from a connection of their
// own: PostgreSQL serialises the commits of all transactions that NOTIFY in
// a database (one lock, held through the commit's WAL flush), so a NOTIFY
// inside each enqueue would let only one enqueue commit at a time — half the
// throughput in BenchmarkRoundTrip. The notifier instead sends the topics
// written since its last send in one statement, with synchronous_commit off
// (a notification needs no durability: the item it announces is committed
// already), so it holds that lock only briefly and coalesces under load.
//
// A notification can therefore be lost when the process dies between its
// write's COMMIT and the send, or while the notifier cannot reach the
// database; waiters elsewhere then find the item within Options.MaxWait.

// announce queues a notification for topic and wakes the local waiters at
// once.
func (q *Queue) announce(topic string) {
	q.wake(topic)
	q.mu.Lock()
	q.pending[topic] = true
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// takePending returns the topics to notify and empties the set.
func (q *Queue) takePending() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	topics := make([]string, 0, len(q.pending))
	for t := range q.pending {
		topics = append(topics, t)
	}
	clear(q.pending)
	return topics
}

// notify sends the queued notifications until ctx ends, then sends what is
// left once more (bounded by a second) so a clean shutdown loses nothing.
func (q *Queue) notify(ctx context.Context) {
	defer close(q.notifyDone)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	send := func(sctx context.Context, topics []string) error {
		if conn == nil || conn.IsClosed() {
			cfg := q.db.Pool().Config().ConnConfig
			if cfg.RuntimeParams == nil {
				cfg.RuntimeParams = map[string]string{}
			}
			cfg.RuntimeParams["synchronous_commit"] = "off"
			c, err := pgx.ConnectConfig(sctx, cfg)
			if err != nil {
				return err
			}
			conn = c
		}
		_, err := conn.Exec(sctx, `SELECT pg_notify('`+Channel+`', t) FROM unnest($1::text[]) AS t`, topics)
		return err
	}
	backoff := 100 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			if topics := q.takePending(); len(topics) > 0 {
				fctx, cancel := context.WithTimeout(context.Background(), time.Second)
				send(fctx, topics)
				cancel()
			}
			return
		case <-q.kick:
		}
		topics := q.takePending()
		if len(topics) == 0 {
			continue
		}
		if err := send(ctx, topics); err != nil {
			if ctx.Err() != nil {
				continue // the shutdown branch sends them
			}
			// Keep them for the next try; waiters elsewhere still find the
			// items within MaxWait meanwhile.
			q.mu.Lock()
			for _, t := range topics {
				q.pending[t] = true
			}
			q.mu.Unlock()
			q.log.Warn("queue notifications cannot be sent; retrying", "error", err, "retryIn", backoff)
			if conn != nil {
				conn.Close(context.Background())
				conn = nil
			}
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
			backoff = min(2*backoff, maxBackoff)
			select {
			case q.kick <- struct{}{}:
			default:
			}
			continue
		}
		backoff = 100 * time.Millisecond
	}
}
