// Package queue is durable work handed between processes: a producer enqueues
// items on a topic, consumers lease them for a while, and an item leaves the
// queue only when its lease holder acks it. A lease that runs out (its holder
// died or stalled) makes the item visible again, so work is never lost; an
// acked item never comes back. Delivery is therefore at least once: consumers
// make their work idempotent (the item id is the natural key).
//
// Implementations: internal/queue/local (a table in the SQLite store, one
// machine) now, NATS JetStream later; both run internal/queue/queuetest.
package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Message is an item to enqueue.
type Message struct {
	Topic   string
	ID      string // unique within the topic while the item is queued
	Payload []byte
	// Group is the item's fairness group (an execution's account; "" is a
	// group too). Lease takes items round-robin across the groups of a
	// topic: first the group served least recently, oldest item first, so
	// one group's backlog does not hold up another's first item. Within a
	// group, and on a topic of one group, items come oldest first. See
	// FairGroups in queuetest for the backends that meet it.
	Group string
	// NotBefore delays the first delivery (zero: at once).
	NotBefore time.Time
	// ExpiresAt (zero: never) is when the item stops being worth reading:
	// once it has passed, the queue may delete it unread. The table queues
	// (local, pgqueue) do, in a sweep (see Sweeper), and keep an item while
	// a lease holds it; natsq gives it JetStream's per-message TTL (whole
	// seconds, rounded up), which deletes it even under a lease; Kafka keeps
	// items by the topic's retention. An item may still be delivered after
	// it expired, so it only bounds how long an item nobody reads is kept.
	// Not before NotBefore.
	ExpiresAt time.Time
}

// Item is a leased item. Token identifies this lease: Ack, Nack and Extend
// take the Item so that a holder whose lease ran out and was given to another
// cannot ack the other's work.
type Item struct {
	Topic      string
	ID         string
	Payload    []byte
	Group      string // Message.Group
	Attempts   int    // deliveries so far, this one included
	EnqueuedAt time.Time
	LeasedBy   string
	LeaseUntil time.Time
	Token      string
	// Trace is the W3C trace context the message's own headers carry
	// (traceparent, tracestate, baggage) on the backends that keep headers
	// (natsq, kafkaq), so that a message another producer sent with only
	// the standard headers joins its trace; empty on the others, whose
	// messages carry it in the payload.
	Trace telemetry.Carrier
}

// Queue is a durable work queue.
type Queue interface {
	// Enqueue adds m. When an item with the same topic and id is still in the
	// queue (not yet acked), nothing changes and enqueued is false.
	Enqueue(ctx context.Context, m Message) (enqueued bool, err error)
	// Lease takes up to n visible items of topic for owner for d, oldest
	// first within a group and round-robin across groups (Message.Group).
	// No item visible is no error: the result is empty.
	Lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]Item, error)
	// Ack removes a leased item for good. A lease that was lost (it ran out
	// and another took the item, or the item was acked already) is a Conflict.
	Ack(ctx context.Context, it Item) error
	// Nack gives a leased item back, visible again after delay.
	Nack(ctx context.Context, it Item, delay time.Duration) error
	// Extend keeps a leased item for d from now and returns it with its new
	// LeaseUntil.
	Extend(ctx context.Context, it Item, d time.Duration) (Item, error)
	// Wait returns when an item of topic may be visible (enqueued, nacked, a
	// delay or lease ran out), or with ctx's error. It may return early
	// (spuriously), never late; a consumer loops Lease, then Wait when Lease
	// gave nothing, and never spins.
	Wait(ctx context.Context, topic string) error
	// Close stops the queue; it does not close a store it was built on.
	Close() error
}

// Bounds every implementation enforces.
const (
	MaxTopicBytes   = 256
	MaxIDBytes      = 256
	MaxGroupBytes   = 256
	MaxOwnerBytes   = 256
	MaxPayloadBytes = 16 << 20
	MaxLeaseItems   = 1000
	MaxLease        = 24 * time.Hour
	MaxDelay        = 30 * 24 * time.Hour
)

func invalid(format string, args ...any) *fault.Error {
	return fault.New(fault.Invalid, "%s", fmt.Sprintf(format, args...))
}

func checkName(field, v string, max int) error {
	if v == "" {
		return invalid("%s is required", field)
	}
	if len(v) > max {
		return invalid("%s is %d bytes long, over the limit of %d", field, len(v), max)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return invalid("%s holds a control character at byte %d", field, i)
		}
	}
	return nil
}

// CheckMessage checks a message before it is enqueued.
func CheckMessage(m Message) error {
	if err := checkName("topic", m.Topic, MaxTopicBytes); err != nil {
		return err
	}
	if err := checkName("item id", m.ID, MaxIDBytes); err != nil {
		return err
	}
	if m.Group != "" {
		if err := checkName("group", m.Group, MaxGroupBytes); err != nil {
			return err
		}
	}
	if len(m.Payload) > MaxPayloadBytes {
		return invalid("payload is %d bytes, over the limit of %d", len(m.Payload), MaxPayloadBytes)
	}
	if !m.ExpiresAt.IsZero() && m.ExpiresAt.Before(m.NotBefore) {
		return invalid("item %q expires at %s, before its first delivery at %s", m.ID,
			m.ExpiresAt.UTC().Format(time.RFC3339Nano), m.NotBefore.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// CheckLease checks the arguments of Lease.
func CheckLease(topic, owner string, n int, d time.Duration) error {
	if err := checkName("topic", topic, MaxTopicBytes); err != nil {
		return err
	}
	if err := checkName("owner", owner, MaxOwnerBytes); err != nil {
		return err
	}
	if n < 1 || n > MaxLeaseItems {
		return invalid("lease count %d is outside 1..%d", n, MaxLeaseItems)
	}
	return CheckDuration("lease", d, time.Millisecond, MaxLease)
}

// CheckDuration refuses d outside min..max.
func CheckDuration(what string, d, min, max time.Duration) error {
	if d < min || d > max {
		return invalid("%s duration %v is outside %v..%v", what, d, min, max)
	}
	return nil
}

// CheckItem checks the identity of a leased item.
func CheckItem(it Item) error {
	if err := checkName("topic", it.Topic, MaxTopicBytes); err != nil {
		return err
	}
	if err := checkName("item id", it.ID, MaxIDBytes); err != nil {
		return err
	}
	if it.Token == "" {
		return invalid("item %q carries no lease token: pass the Item that Lease returned", it.ID)
	}
	return nil
}

// LeaseLost is the error for acting on a lease that is no longer held.
func LeaseLost(it Item) *fault.Error {
	return fault.New(fault.Conflict, "the lease of item %q on topic %q is no longer held: it ran out and was given to another, or the item was acked",
		it.ID, it.Topic).WithDetail("itemId", it.ID).WithDetail("topic", it.Topic).
		WithSuggestions("Extend leases before they run out; the item's work may be done twice, so keep it idempotent")
}

// Depther is implemented by the queues that can count a topic's items (the
// table queues, SQLite and PostgreSQL): the admin's system page shows the
// agent task queue's depth from it. NATS JetStream and Kafka do not say.
type Depther interface {
	// Depth counts topic's items not yet acked (visible, delayed or
	// leased), up to max: past it, max.
	Depth(ctx context.Context, topic string, max int) (int, error)
}

// Backlog is implemented by the queues that can say whether another group's
// item waits. A consumer busy with one group's long work uses it to give
// way between steps, so that one group's backlog delays another group's
// first item by at most a step, not a whole item's work. The table queues
// (SQLite, PostgreSQL) have it; NATS JetStream and Kafka hand items out in
// log order and cannot see past it, so their consumers never give way.
type Backlog interface {
	// OthersWaiting says whether topic has a visible item whose group is
	// not group.
	OthersWaiting(ctx context.Context, topic, group string) (bool, error)
}
