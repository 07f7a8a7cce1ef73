package natsq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Lease implements queue.Queue.
func (q *Queue) Lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]queue.Item, error) {
	if err := queue.CheckLease(topic, owner, n, d); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	items, err := q.lease(ctx, topic, owner, n, d)
	// An item this process just enqueued can be missing from a fetch until
	// the consumer has caught up with the stream: so that an Enqueue then a
	// Lease through one Queue sees the item, look again for a little while.
	for err == nil && len(items) == 0 && q.unseenEnqueue(topic) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(catchUpPoll):
		}
		items, err = q.lease(ctx, topic, owner, n, d)
	}
	if errors.Is(err, errConsumerGone) {
		// Made again: the new consumer delivers what the old one held.
		items, err = q.lease(ctx, topic, owner, n, d)
	}
	if errors.Is(err, errConsumerGone) {
		return nil, q.unavailable("fetch from topic "+strconv.Quote(topic), err)
	}
	return items, err
}

// errConsumerGone: the topic's consumer vanished during a fetch.
var errConsumerGone = errors.New("the topic's consumer is gone from the server")

func (q *Queue) lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]queue.Item, error) {
	start := time.Now()
	q.leasing(topic)
	batch, err := q.fetch(ctx, topic, n)
	if err != nil {
		return nil, err
	}
	until := start.Add(d)
	var items []queue.Item
	for m := range batch.Messages() {
		meta, err := m.Metadata()
		if err != nil {
			q.log.Warn("natsq: a message without metadata", "topic", topic, "err", err)
			continue
		}
		// The lease: this delivery stays pending and comes back after d.
		// Sent without waiting: the delivery is ours until AckWait anyway.
		if err := q.nc.Publish(m.Reply(), nakDelay(d)); err != nil {
			return items, q.unavailable("set the lease of a message", err)
		}
		h := m.Headers()
		it := queue.Item{
			Topic: topic, ID: h.Get(hdrID), Payload: m.Data(), Group: h.Get(hdrGroup), Attempts: int(meta.NumDelivered),
			LeasedBy: owner, LeaseUntil: until, Token: m.Reply(),
			Trace: telemetry.Carrier{Traceparent: h.Get(telemetry.KeyTraceparent), Tracestate: h.Get(telemetry.KeyTracestate),
				Baggage: h.Get(telemetry.KeyBaggage)},
		}
		if it.Payload == nil {
			it.Payload = []byte{}
		}
		if it.ID == "" { // published by someone else than natsq
			it.ID = m.Subject()
		}
		if t, err := time.Parse(time.RFC3339Nano, h.Get(hdrEnqueued)); err == nil {
			it.EnqueuedAt = t.UTC()
		} else {
			it.EnqueuedAt = meta.Timestamp.UTC()
		}
		q.leases.add(it.Token, meta.Sequence.Stream, until)
		q.seen(topic, meta.Sequence.Stream)
		items = append(items, it)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && len(items) == 0 {
		if q.consumerGone(topic, err) {
			return nil, errConsumerGone
		}
		return nil, q.unavailable("fetch from topic "+strconv.Quote(topic), err)
	}
	if len(items) > 0 {
		q.remember(topic, until)
		q.announce(topic, until, 0)
	}
	return items, nil
}

// fetch asks the topic's consumer for up to n messages without waiting.
func (q *Queue) fetch(ctx context.Context, topic string, n int) (jetstream.MessageBatch, error) {
	cons, err := q.consumer(ctx, topic)
	if err != nil {
		return nil, err
	}
	batch, err := cons.FetchNoWait(n)
	if err != nil {
		if q.consumerGone(topic, err) {
			return nil, errConsumerGone
		}
		return nil, q.unavailable("fetch from topic "+strconv.Quote(topic), err)
	}
	return batch, nil
}

// Ack implements queue.Queue: the delete by sequence decides, so exactly one
// Ack of an item succeeds.
func (q *Queue) Ack(ctx context.Context, it queue.Item) error {
	tok, err := q.claim(it)
	if err != nil {
		return err
	}
	c, cancel := q.bound(ctx)
	defer cancel()
	if err := q.deleteSeq(c, tok.seq); err != nil {
		if errors.Is(err, errNoMessage) {
			q.leases.settle(it.Token, spent)
			return queue.LeaseLost(it)
		}
		q.leases.settle(it.Token, held)
		return q.unavailable("ack item "+strconv.Quote(it.ID), err)
	}
	q.leases.settle(it.Token, spent)
	// The consumer forgets the delivery; were this lost, the consumer would
	// find the message gone at its redelivery and drop it.
	q.nc.Publish(it.Token, []byte("+ACK"))
	return nil
}

// Nack implements queue.Queue.
func (q *Queue) Nack(ctx context.Context, it queue.Item, delay time.Duration) error {
	if err := queue.CheckDuration("retry delay", delay, 0, queue.MaxDelay); err != nil {
		return err
	}
	if _, err := q.claim(it); err != nil {
		return err
	}
	if err := q.nak(ctx, it, delay); err != nil {
		q.leases.settle(it.Token, held)
		return err
	}
	q.leases.settle(it.Token, spent)
	q.announce(it.Topic, time.Now().Add(delay), 0)
	return nil
}

// Extend implements queue.Queue: a NAK with the new delay moves the same
// delivery's redelivery; the token stays.
func (q *Queue) Extend(ctx context.Context, it queue.Item, d time.Duration) (queue.Item, error) {
	if err := queue.CheckDuration("lease", d, time.Millisecond, queue.MaxLease); err != nil {
		return it, err
	}
	tok, err := q.claim(it)
	if err != nil {
		return it, err
	}
	until := time.Now().Add(d)
	if err := q.nak(ctx, it, d); err != nil {
		q.leases.settle(it.Token, held)
		return it, err
	}
	q.leases.extend(it.Token, tok.seq, until)
	it.LeaseUntil = until
	q.remember(it.Topic, until)
	q.announce(it.Topic, until, 0)
	return it, nil
}

// nak sends a NAK (with a delay when d > 0) and waits for the server's
// answer, so the change is in force when it returns.
func (q *Queue) nak(ctx context.Context, it queue.Item, d time.Duration) error {
	body := []byte("-NAK")
	if d > 0 {
		body = nakDelay(d)
	}
	c, cancel := q.bound(ctx)
	defer cancel()
	if _, err := q.nc.RequestWithContext(c, it.Token, body); err != nil {
		return q.unavailable("nak item "+strconv.Quote(it.ID), err)
	}
	return nil
}

func nakDelay(d time.Duration) []byte {
	return fmt.Appendf(nil, `-NAK {"delay": %d}`, d.Nanoseconds())
}

// claim checks that it's lease may be used and marks it busy, so that two
// calls on one token in this process cannot both go on.
func (q *Queue) claim(it queue.Item) (ackToken, error) {
	if err := queue.CheckItem(it); err != nil {
		return ackToken{}, err
	}
	if err := q.check(); err != nil {
		return ackToken{}, err
	}
	tok, ok := parseToken(it.Token)
	if !ok || tok.stream != q.name || tok.consumer != q.n.consumer(it.Topic) {
		return ackToken{}, queue.LeaseLost(it)
	}
	if !q.leases.claim(it.Token, it.LeaseUntil, time.Now()) {
		return ackToken{}, queue.LeaseLost(it)
	}
	return tok, nil
}

// errNoMessage: the sequence is not in the stream (acked already).
var errNoMessage = errors.New("no message with that sequence")

// deleteSeq deletes one message by sequence through the JetStream API
// directly: nats.go's DeleteMsg flattens the server's error into text, and
// "no message found" (10057, or 10037 on some paths) must be told from a
// failure.
func (q *Queue) deleteSeq(ctx context.Context, seq uint64) error {
	req := fmt.Appendf(nil, `{"seq":%d,"no_erase":true}`, seq)
	resp, err := q.nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.DELETE."+q.name, req)
	if err != nil {
		return err
	}
	var r struct {
		Success bool `json:"success"`
		Error   *struct {
			Code        int    `json:"code"`
			ErrCode     int    `json:"err_code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp.Data, &r); err != nil {
		return fmt.Errorf("unreadable answer to a delete: %w", err)
	}
	if r.Error != nil {
		if r.Error.ErrCode == 10037 || r.Error.ErrCode == 10057 && strings.Contains(r.Error.Description, "no message found") {
			return errNoMessage
		}
		return fmt.Errorf("delete refused: %s (code %d)", r.Error.Description, r.Error.ErrCode)
	}
	if !r.Success {
		return errors.New("delete not confirmed")
	}
	return nil
}
