package natsq

import (
	"bytes"
	"context"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sluicehq/sluice/internal/queue"
)

// maxDues bounds the due times remembered per topic; past it the earliest
// are kept, and MaxWait covers the rest.
const maxDues = 1024

// topicWait is a topic's waiters and what this process knows of when its
// items come due.
type topicWait struct {
	sub  *nats.Subscription // wake-ups of every process, on P.w.TOPIC
	sig  chan struct{}      // closed on a wake-up
	dues []time.Time        // lease ends, delays and schedules known here
	// gen counts the wake-ups heard; leased is gen when a Lease of the
	// topic last began. A Wait that finds them apart returns at once: what
	// woke in between may not show in the consumer's pending count yet
	// (JetStream updates it after the publish is acknowledged), and the
	// wake-up itself is spent.
	gen, leased uint64
	// visibleSeq is the highest stream sequence announced visible (by an
	// Enqueue here or elsewhere), at visibleAt: until the consumer has
	// delivered it, a message just published may be missing from a fetch
	// and from the pending count, so Wait looks again shortly.
	visibleSeq uint64
	visibleAt  time.Time
	// enqueuedAt and enqueuedSeq are when this process last enqueued to the
	// topic and the stream sequence it got; seenSeq is the highest sequence
	// a Lease here fetched. While an enqueue is recent and not yet seen, an
	// empty Lease looks again (see Lease).
	enqueuedAt           time.Time
	enqueuedSeq, seenSeq uint64
}

// Catching up with an announced message: how long, and how often a Lease or
// Wait looks again.
const (
	catchUpWindow = 100 * time.Millisecond
	catchUpPoll   = 2 * time.Millisecond
)

// Wait implements queue.Queue. It registers first and looks second, so an
// item that arrives between a consumer's empty Lease and its Wait is never
// missed: either the look sees it, or its wake-up comes after the
// registration.
func (q *Queue) Wait(ctx context.Context, topic string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := queue.CheckLease(topic, "waiter", 1, time.Second); err != nil {
		return err
	}
	sig, next, woke, announced, err := q.register(topic)
	if err != nil {
		return err
	}
	if woke {
		return nil
	}
	if !next.IsZero() && !next.After(time.Now()) {
		return nil
	}
	cons, err := q.consumer(ctx, topic)
	if err != nil {
		return err
	}
	c, cancel := q.bound(ctx)
	info, err := cons.Info(c)
	cancel()
	if err != nil {
		if q.consumerGone(topic, err) {
			return nil // look again: the next Lease makes it anew
		}
		return q.unavailable("ask the consumer of topic "+strconv.Quote(topic)+" for its state", err)
	}
	if info.NumPending > 0 {
		return nil
	}
	wait := q.o.MaxWait
	if !next.IsZero() {
		wait = min(wait, time.Until(next))
	}
	if info.Delivered.Stream < announced {
		wait = min(wait, catchUpPoll) // announced, not yet delivered to anyone
	}
	if err := queue.Sleep(ctx, wait, sig, q.done); err != nil {
		return err
	}
	return q.check()
}

// register makes sure the topic's wake-ups are subscribed to and returns its
// signal and its earliest due time, after dropping the due times that passed
// (a passed one is returned once: the item may be visible).
func (q *Queue) register(topic string) (<-chan struct{}, time.Time, bool, uint64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil, time.Time{}, false, 0, closedErr()
	}
	tw := q.topicWaitLocked(topic)
	if tw.sub == nil {
		sub, err := q.nc.Subscribe(q.n.wake(topic), func(m *nats.Msg) { q.heard(topic, m.Data) })
		if err != nil {
			return nil, time.Time{}, false, 0, q.unavailable("subscribe to the wake-ups of topic "+strconv.Quote(topic), err)
		}
		tw.sub = sub
	}
	if tw.sig == nil {
		tw.sig = make(chan struct{})
	}
	now := time.Now()
	var next time.Time
	kept := tw.dues[:0]
	for _, d := range tw.dues {
		if !d.After(now) {
			if next.IsZero() || d.Before(next) {
				next = d
			}
			continue
		}
		kept = append(kept, d)
	}
	tw.dues = kept
	if next.IsZero() {
		for _, d := range tw.dues {
			if next.IsZero() || d.Before(next) {
				next = d
			}
		}
	}
	woke := tw.gen != tw.leased
	tw.leased = tw.gen
	var announced uint64
	if time.Since(tw.visibleAt) < catchUpWindow {
		announced = tw.visibleSeq
	}
	return tw.sig, next, woke, announced, nil
}

// enqueued notes that this process enqueued seq to topic now.
func (q *Queue) enqueued(topic string, seq uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	tw := q.topicWaitLocked(topic)
	tw.enqueuedAt = time.Now()
	tw.enqueuedSeq = max(tw.enqueuedSeq, seq)
}

// seen notes the stream sequence of a message a Lease here fetched.
func (q *Queue) seen(topic string, seq uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	tw := q.topicWaitLocked(topic)
	tw.seenSeq = max(tw.seenSeq, seq)
}

// unseenEnqueue reports whether this process enqueued to topic within the
// catch-up window something no Lease here has fetched yet.
func (q *Queue) unseenEnqueue(topic string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	tw := q.topics[topic]
	return tw != nil && tw.enqueuedSeq > tw.seenSeq && time.Since(tw.enqueuedAt) < catchUpWindow
}

// leasing notes that a Lease of topic begins (see topicWait.gen).
func (q *Queue) leasing(topic string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	tw := q.topicWaitLocked(topic)
	tw.leased = tw.gen
}

func (q *Queue) topicWaitLocked(topic string) *topicWait {
	tw := q.topics[topic]
	if tw == nil {
		tw = &topicWait{}
		q.topics[topic] = tw
	}
	return tw
}

// remember notes when something of topic comes due, for this process's
// waiters.
func (q *Queue) remember(topic string, due time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rememberLocked(topic, due)
}

func (q *Queue) rememberLocked(topic string, due time.Time) {
	tw := q.topicWaitLocked(topic)
	if len(tw.dues) >= maxDues {
		latest := 0
		for i, d := range tw.dues {
			if d.After(tw.dues[latest]) {
				latest = i
			}
		}
		if !due.Before(tw.dues[latest]) {
			return
		}
		tw.dues[latest] = due
		return
	}
	tw.dues = append(tw.dues, due)
}

// announce tells the waiters of every process that something of topic comes
// due at due: a plain NATS message, lost when nobody listens, which costs
// nothing then. An item visible now carries its stream sequence seq (0:
// none known) as "s<seq>"; a later one its due time in Unix nanoseconds.
func (q *Queue) announce(topic string, due time.Time, seq uint64) {
	var data []byte
	switch {
	case due.After(time.Now()):
		data = strconv.AppendInt(nil, due.UnixNano(), 10)
	case seq > 0:
		data = strconv.AppendUint([]byte("s"), seq, 10)
	}
	q.heard(topic, data)
	q.nc.Publish(q.n.wake(topic), data)
}

// heard handles a wake-up: a due time in the future is remembered; either
// way the waiters return, to look again (early is allowed, late is not).
func (q *Queue) heard(topic string, data []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	tw := q.topicWaitLocked(topic)
	if seq, ok := bytes.CutPrefix(data, []byte("s")); ok {
		if n, err := strconv.ParseUint(string(seq), 10, 64); err == nil && n > 0 {
			tw.visibleSeq, tw.visibleAt = max(tw.visibleSeq, n), time.Now()
		}
	} else if ns, err := strconv.ParseInt(string(data), 10, 64); err == nil {
		if due := time.Unix(0, ns); due.After(time.Now()) {
			q.rememberLocked(topic, due)
		}
	}
	tw.gen++
	if tw.sig != nil {
		close(tw.sig)
		tw.sig = nil
	}
}
