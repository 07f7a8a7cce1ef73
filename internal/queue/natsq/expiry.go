package natsq

import (
	"errors"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/queue"
)

// Expiry (queue.Message.ExpiresAt) is the server's own per-message TTL
// (ADR-43, nats-server 2.11 and later, on a stream with AllowMsgTTL): the
// server deletes the message when its TTL has passed, so nothing here sweeps
// and no process has to stay up for it. The TTL is relative (counted from
// when the server stores the message), so the publisher's clock only has to
// agree with itself: ExpiresAt was stamped on it, and the TTL is ExpiresAt
// less its own now.
//
// Unlike the table queues' sweep, the server also deletes an item that is
// leased when its TTL passes: its holder's Ack is then a Conflict (the lease
// is lost), as after any other deletion. Agent results, the items that
// expire, are read and acked at once, and expire only after their caller has
// given up.

// minTTL is the shortest TTL the server takes.
const minTTL = time.Second

// errCodeTTLDisabled is the server's "per-message TTL is disabled" (its
// JSMessageTTLDisabledErr), given to a message with a TTL on a stream without
// AllowMsgTTL; nats.go names no constant for it.
const errCodeTTLDisabled jetstream.ErrorCode = 10166

// ttlFor is the TTL of a message that becomes visible at from and expires at
// expires: whole seconds, rounded up, because the server truncates to whole
// seconds and an item deleted before its expiry would be lost to a reader
// that still wants it; at least minTTL. An item that expired already is kept
// for minTTL rather than not published, so that Enqueue means what it means
// on every queue (true: stored; false: the id is still queued) and a reader
// leasing right now may still have it, as the table queues keep such an item
// until their next sweep. It costs one message for a second.
func ttlFor(expires, from time.Time) time.Duration {
	d := expires.Sub(from)
	if d <= minTTL {
		return minTTL
	}
	return (d + time.Second - 1).Truncate(time.Second)
}

// setExpiry puts m's expiry on msg, published at now: Nats-TTL on an item
// stored at once; Nats-Schedule-TTL on a schedule (NotBefore), which the
// server gives the item it stores when the schedule fires (it strips Nats-TTL
// from it), counted from then. The schedule message itself needs none: the
// server removes it when it fires. Nothing without ExpiresAt, or when the
// server keeps no TTLs.
func (q *Queue) setExpiry(msg *nats.Msg, m queue.Message, now time.Time) {
	if m.ExpiresAt.IsZero() || q.expiryOff.Load() {
		return
	}
	if m.NotBefore.After(now) {
		msg.Header.Set(jetstream.ScheduleTTLHeader, ttlHeader(ttlFor(m.ExpiresAt, m.NotBefore)))
		return
	}
	msg.Header.Set(jetstream.MsgTTLHeader, ttlHeader(ttlFor(m.ExpiresAt, now)))
}

// clearExpiry takes the expiry headers off msg again.
func clearExpiry(msg *nats.Msg) {
	msg.Header.Del(jetstream.MsgTTLHeader)
	msg.Header.Del(jetstream.ScheduleTTLHeader)
}

// ttlHeader writes a TTL as whole seconds ("90s"), which every server that
// has TTLs reads exactly.
func ttlHeader(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// ttlRefused reports whether err is the server refusing a TTL because the
// stream does not allow them (it was made again, after Open, without
// AllowMsgTTL: by a sluice from before expiries, say).
func ttlRefused(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == errCodeTTLDisabled
}

// turnOffExpiry stops giving items a TTL for the rest of this Queue's life,
// and says so once: items then stay until read, as before expiries existed,
// rather than be refused. A new Open turns it on again where it can.
func (q *Queue) turnOffExpiry(why string) {
	if q.expiryOff.CompareAndSwap(false, true) {
		q.log.Warn("natsq: items' expiry (ExpiresAt) is not applied on this stream: expired items stay until read or purged; per-message TTLs need nats-server 2.11 or later and a stream that allows them",
			"stream", q.name, "server", q.serverName(), "serverVersion", q.nc.ConnectedServerVersion(), "reason", why)
	}
}
