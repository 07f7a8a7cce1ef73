package execution

import (
	"context"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
)

// Fairness between accounts has two halves. The queue leases round-robin
// across accounts (queue.Message.Group), which serves another account's
// first execution as soon as a worker is free. A worker busy with one
// account's long execution gives way between its steps when every worker
// is busy and another account's execution waits: the execution parks until
// now, goes back to the queue, and the next lease serves the other account
// first. So one account's backlog delays another account's first execution
// by at most one operation, not by whole executions. Queues that cannot say
// whether others wait (queue.Backlog) never give way.

// backlogTTL bounds how often a busy manager asks the queue whether other
// accounts wait: every step of every worker asks, and the answer may be
// this old. It is a cost bound, not a semantic one.
const backlogTTL = 20 * time.Millisecond

// backlog caches the queue's answer per account.
type backlog struct {
	mu      sync.Mutex
	checked map[string]backlogAnswer
}

type backlogAnswer struct {
	at      time.Time
	waiting bool
}

// giveWay is the engine's GiveWay for an execution of account; nil when the
// queue cannot tell.
func (m *Manager) giveWay(ctx context.Context, account string) func() bool {
	b, ok := m.cfg.Queue.(queue.Backlog)
	if !ok {
		return nil
	}
	return func() bool {
		if m.busy.Load() < int64(m.cfg.Workers) {
			return false // a free worker takes whatever waits
		}
		return m.backlog.othersWaiting(ctx, b, account)
	}
}

func (c *backlog) othersWaiting(ctx context.Context, b queue.Backlog, account string) bool {
	now := time.Now()
	c.mu.Lock()
	a, ok := c.checked[account]
	c.mu.Unlock()
	if ok && now.Sub(a.at) < backlogTTL {
		return a.waiting
	}
	waiting, err := b.OthersWaiting(ctx, Topic, account)
	if err != nil {
		return false // the queue away: carry on, as without fairness
	}
	c.mu.Lock()
	if c.checked == nil || len(c.checked) > 1024 {
		c.checked = make(map[string]backlogAnswer)
	}
	c.checked[account] = backlogAnswer{at: now, waiting: waiting}
	c.mu.Unlock()
	return waiting
}
