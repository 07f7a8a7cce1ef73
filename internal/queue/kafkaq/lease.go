package kafkaq

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/queue"
)

// Lease implements queue.Queue.
func (q *Queue) Lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]queue.Item, error) {
	if err := queue.CheckLease(topic, owner, n, d); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	kt := q.mainTopic(topic)
	if err := q.ensureTopics(ctx, kt); err != nil {
		return nil, err
	}
	if err := q.catchUp(ctx, topic); err != nil {
		return nil, err
	}
	s := &q.st
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	until := now.Add(d)
	var items []queue.Item
	for _, e := range s.visibleLocked(topic, n, now) {
		e.attempts++
		e.token, e.owner, e.until, e.due = ids.New(ids.LeaseToken), owner, until, until
		items = append(items, queue.Item{
			Topic: topic, ID: e.id, Payload: e.payload, Group: e.group, Attempts: e.attempts, EnqueuedAt: e.enqueuedAt,
			LeasedBy: owner, LeaseUntil: until, Token: e.token, Trace: e.trace,
		})
	}
	return items, nil
}

// catchUp waits until this member read what it produced to the partitions
// of topic it owns (the topic's own and the retry tiers), or CatchUp passed.
// A partition it produced to but does not own is waited for until the group
// shows it assigned to another member (asked at most every 50 ms).
func (q *Queue) catchUp(ctx context.Context, topic string) error {
	kts := map[string]bool{q.mainTopic(topic): true}
	for _, t := range q.tiers {
		kts[t.topic] = true
	}
	deadline := time.Now().Add(q.o.CatchUp)
	elsewhere := q.st.knownElsewhere()
	var asked time.Time
	for {
		ok, others := q.st.caughtUp(kts, elsewhere)
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return nil // look at what is there; the rest comes later
		}
		if others && time.Since(asked) >= 50*time.Millisecond {
			asked = time.Now()
			if e, err := q.assignedElsewhere(ctx); err == nil {
				elsewhere = e
				q.st.setElsewhere(e, asked)
				continue
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-q.done:
			return closedErr()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// assignedElsewhere asks the group which partitions its other members own.
func (q *Queue) assignedElsewhere(ctx context.Context) (map[tp]bool, error) {
	c, cancel := context.WithTimeout(ctx, q.o.Timeout)
	defer cancel()
	groups, err := q.adm.DescribeGroups(c, q.o.Group)
	if err != nil {
		return nil, err
	}
	g, found := groups[q.o.Group]
	if !found || g.Err != nil {
		return nil, errors.New("kafkaq: the group was not described")
	}
	me, _ := q.cl.GroupMetadata()
	out := map[tp]bool{}
	for _, m := range g.Members {
		if m.MemberID == me {
			continue
		}
		a, ok := m.Assigned.AsConsumer()
		if !ok {
			continue
		}
		for _, t := range a.Topics {
			for _, part := range t.Partitions {
				out[tp{topic: t.Topic, partition: part}] = true
			}
		}
	}
	return out, nil
}

// held finds the entry a lease token names, under s.mu.
func (q *Queue) heldLocked(it queue.Item) *entry {
	e := q.st.items[it.Topic][it.ID]
	if e == nil || e.token == "" || e.token != it.Token {
		return nil
	}
	return e
}

func (q *Queue) claim(it queue.Item) error {
	if err := queue.CheckItem(it); err != nil {
		return err
	}
	return q.check()
}

// Ack implements queue.Queue.
func (q *Queue) Ack(ctx context.Context, it queue.Item) error {
	if err := q.claim(it); err != nil {
		return err
	}
	s := &q.st
	s.mu.Lock()
	defer s.mu.Unlock()
	e := q.heldLocked(it)
	if e == nil {
		return queue.LeaseLost(it)
	}
	s.finishLocked(e)
	return nil
}

// Nack implements queue.Queue: at once in memory, later through a retry
// topic.
func (q *Queue) Nack(ctx context.Context, it queue.Item, delay time.Duration) error {
	if err := queue.CheckDuration("retry delay", delay, 0, queue.MaxDelay); err != nil {
		return err
	}
	if err := q.claim(it); err != nil {
		return err
	}
	s := &q.st
	s.mu.Lock()
	e := q.heldLocked(it)
	if e == nil {
		s.mu.Unlock()
		return queue.LeaseLost(it)
	}
	if delay == 0 {
		e.token, e.owner, e.due = "", "", time.Now()
		s.wakeLocked(e.topic)
		s.mu.Unlock()
		return nil
	}
	// Spend the token now; the entry stays until its copy is written, so
	// it is never lost.
	e.token, e.due, e.moving = "", time.Now().Add(queue.MaxDelay+time.Hour), true
	s.mu.Unlock()

	notBefore := time.Now().Add(delay)
	rec := &kgo.Record{Topic: q.tierFor(delay), Key: []byte(e.id), Value: e.payload, Headers: []kgo.RecordHeader{
		{Key: hdrTopic, Value: []byte(e.topic)}, {Key: hdrID, Value: []byte(e.id)},
		{Key: hdrEnqueued, Value: []byte(e.enqueuedAt.Format(time.RFC3339Nano))},
		{Key: hdrNotBefore, Value: []byte(notBefore.UTC().Format(time.RFC3339Nano))},
		{Key: hdrAttempts, Value: []byte(strconv.Itoa(e.attempts))},
	}}
	if e.group != "" {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: hdrGroup, Value: []byte(e.group)})
	}
	for _, h := range e.trace.Headers() { // the copy stays in its trace
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: h[0], Value: []byte(h[1])})
	}
	err := q.produce(ctx, rec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.items[e.topic][e.id] == e {
			e.due, e.moving = time.Now(), false // due again here rather than lost
			s.wakeLocked(e.topic)
		}
		return err
	}
	if s.items[e.topic][e.id] == e {
		// The copy is not read yet: the id stays reserved until it is.
		s.finishLocked(e)
		s.reserveLocked(e.topic, e.id, notBefore.Add(q.o.DedupWindow))
	}
	return nil
}

// Extend implements queue.Queue.
func (q *Queue) Extend(ctx context.Context, it queue.Item, d time.Duration) (queue.Item, error) {
	if err := queue.CheckDuration("lease", d, time.Millisecond, queue.MaxLease); err != nil {
		return it, err
	}
	if err := q.claim(it); err != nil {
		return it, err
	}
	s := &q.st
	s.mu.Lock()
	defer s.mu.Unlock()
	e := q.heldLocked(it)
	if e == nil {
		return it, queue.LeaseLost(it)
	}
	until := time.Now().Add(d)
	if until.Before(e.until) {
		s.wakeLocked(e.topic)
	}
	e.until, e.due = until, until
	it.LeaseUntil = until
	return it, nil
}

// Wait implements queue.Queue: it registers first and looks second.
func (q *Queue) Wait(ctx context.Context, topic string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := &q.st
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return closedErr()
	}
	sig := s.signals[topic]
	if sig == nil {
		sig = make(chan struct{})
		s.signals[topic] = sig
	}
	next := s.nextDueLocked(topic)
	s.mu.Unlock()
	wait := q.o.MaxWait
	if !next.IsZero() {
		if due := time.Until(next); due <= 0 {
			return nil
		} else {
			wait = min(wait, due)
		}
	}
	if err := queue.Sleep(ctx, wait, sig, q.done); err != nil {
		return err
	}
	return q.check()
}
