package pgqueue

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// keepalive is how long the listener waits for a notification before it
	// pings its connection: a peer that vanished without a word (no FIN, no
	// RST) is found within this much, not never.
	keepalive = 30 * time.Second
	// maxBackoff bounds the pause between attempts to listen again.
	maxBackoff = 5 * time.Second
)

// listen keeps one connection LISTENing on Channel for the queue's life and
// wakes the waiters of each notified topic. When the connection drops it
// wakes every waiter: they look again and, until it is back, wait at most
// Options.Poll, which covers the notifications lost meanwhile.
func (q *Queue) listen(ctx context.Context) {
	defer close(q.listenDone)
	backoff := 100 * time.Millisecond
	for {
		listened, err := q.listenOnce(ctx)
		q.setListening(false)
		q.wakeAll()
		if ctx.Err() != nil {
			return
		}
		if listened {
			backoff = 100 * time.Millisecond
		}
		q.log.Warn("queue notifications interrupted; waiters poll until they are back", "error", err, "retryIn", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// listenOnce connects, listens and dispatches notifications until the
// connection fails or ctx ends. listened says whether LISTEN took effect.
func (q *Queue) listenOnce(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, q.db.Pool().Config().ConnConfig)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return false, err
	}
	// Waiters that registered while nobody listened poll (Wait chose a
	// short timer then), so a notification sent before this LISTEN costs at
	// most Options.Poll; waking them here would only make them spin once.
	q.setListening(true)
	for {
		wctx, cancel := context.WithTimeout(ctx, keepalive)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			q.wake(n.Payload)
		case ctx.Err() != nil:
			return true, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
			// Quiet for a while: make sure the connection still answers.
			if err := conn.Ping(ctx); err != nil {
				return true, err
			}
		default:
			return true, err
		}
	}
}

func (q *Queue) setListening(on bool) {
	q.mu.Lock()
	q.listening = on
	q.mu.Unlock()
}

// Listening reports whether cross-process wake-ups are live (the listening
// connection is up). While they are not, waiters poll; a health check may
// show it.
func (q *Queue) Listening() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.listening
}
