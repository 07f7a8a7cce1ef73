// Package natsq is the Queue of many machines on NATS JetStream: one stream
// holds the items of every topic, one durable pull consumer per topic hands
// them out, and the consumer's own ack timers are the leases. It meets the
// contract of internal/queue/queuetest, across processes too (see the
// guarantees below), and needs nats-server 2.12 or later (message schedules).
//
// Layout: one stream (Options.StreamName) with WorkQueue retention and the
// subjects P.q.> and P.s.> under a prefix P (Options.Subject). One stream
// rather than a stream per topic because topics come and go with the work
// (one per agent, say): a stream is a Raft group in a cluster, a consumer is
// cheap, and one stream is one thing to size, replicate and watch. Each item
// is its own subject P.q.TOPIC.ID, which is what makes an exact duplicate
// check possible (below).
//
// How each call maps to JetStream:
//   - Enqueue publishes to P.q.TOPIC.ID with "expected last sequence 0" for
//     the subjects P.*.TOPIC.ID: the server stores it only when no message of
//     that id is in the stream, queued or scheduled; otherwise enqueued is
//     false. This is exact for "still queued" and has no time window, unlike
//     Nats-Msg-Id, whose duplicate window would both forget a long-queued id
//     and refuse a new item with the id of one acked a moment ago.
//   - NotBefore publishes a schedule (Nats-Schedule: @at TIME) to P.s.TOPIC.ID
//     whose target is P.q.TOPIC.ID: the server stores the item where the
//     consumer sees it at that time, so its first delivery is its first
//     attempt (Attempts is exact) and nothing polls.
//   - ExpiresAt is a per-message TTL (Nats-TTL, or Nats-Schedule-TTL on a
//     schedule): the server deletes the item when it has passed, read or
//     not (see expiry.go). The stream allows TTLs (AllowMsgTTL).
//   - Lease fetches up to n messages without waiting, then sends each a NAK
//     with delay d: the message stays pending for this delivery and the
//     server redelivers it when d runs out. The consumer's AckWait
//     (Options.AckWait) only bounds the moment between the fetch and that
//     NAK. Attempts is the delivery count; the token is the delivery's ack
//     subject, so any process can act on it.
//   - Extend sends a NAK with the new delay to the same delivery; Nack sends
//     a NAK (with its delay, if any).
//   - Ack deletes the message from the stream by sequence (exactly one
//     deleter succeeds, so an item is acked at most once, across processes),
//     then acks the delivery so the consumer forgets it.
//   - Wait asks the consumer for undelivered messages, then sleeps until a
//     wake-up on P.w.TOPIC (plain NATS: enqueues, nacks and leases of any
//     process announce when their item is due), the earliest due time it
//     knows, or Options.MaxWait, whichever is first.
//
// Guarantees of a lease token (the server checks acks by stream sequence
// only, not by delivery, so the rest is checked here):
//   - Exact, whatever the process: an item is acked at most once; an acked
//     item never comes back; an item is never lost while the stream keeps
//     its replicas; a token whose lease time (LeaseUntil, as Extend moved it)
//     has passed is refused (Conflict) whether or not the item was taken
//     again; so is a token of another stream or consumer, or not a token.
//   - Exact within the Queue that leased it: a token after its own Ack or
//     Nack, or after this Queue was handed the item again, is refused.
//   - Not checked: a token used through another Queue before its time after
//     the leasing Queue nacked it; and an ack sent within the network delay
//     of its lease's end, which may reach the server after it redelivered
//     the item (it then acks the new delivery: the work was done once and
//     its new holder gets a Conflict). Clocks of the machines should agree
//     (NTP), as for every lease-based queue.
package natsq

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Defaults of Options.
const (
	DefaultStreamName       = "SLUICE_QUEUE"
	DefaultSubject          = "sluice.queue"
	DefaultAckWait          = 30 * time.Second
	DefaultMaxWait          = time.Second
	DefaultTimeout          = 5 * time.Second
	DefaultConsumerInactive = 24 * time.Hour
)

// Headers carried by every item.
const (
	hdrTopic    = "Sluice-Topic"
	hdrID       = "Sluice-Id"
	hdrEnqueued = "Sluice-Enqueued"
	hdrGroup    = "Sluice-Group" // queue.Message.Group, absent when ""
)

// Options configure Open.
type Options struct {
	// URL is the server (or comma-separated servers) to connect to; it may
	// hold credentials, which never appear in an error or a log line.
	URL string
	// Conn is used as it is instead of URL; Close leaves it open.
	Conn *nats.Conn
	// StreamName is the stream to create or use; default SLUICE_QUEUE.
	StreamName string
	// Subject is the prefix of the stream's subjects; default sluice.queue.
	Subject string
	// Replicas of the stream (1, 3 or 5 in a cluster); default 1.
	Replicas int
	// Memory keeps the stream in memory instead of on disk (tests).
	Memory bool
	// AckWait bounds the lease of an item fetched by a process that died
	// before it set the lease; default 30 s.
	AckWait time.Duration
	// MaxWait bounds one Wait, so a consumer looks again even when a wake-up
	// was lost; default 1 s.
	MaxWait time.Duration
	// ConsumerInactive is how long a topic's consumer lives on the server
	// without anyone leasing from it; default 24 h. A live consumer leases
	// at least every MaxWait, so only the topics of departed processes (a
	// gateway's own results topic) go.
	ConsumerInactive time.Duration
	// Timeout bounds each request to the server (within the caller's
	// context); default 5 s.
	Timeout time.Duration
	// Logger receives what the queue has to say (nil: nothing is logged).
	Logger *slog.Logger
}

// Queue is the JetStream queue.
type Queue struct {
	nc      *nats.Conn
	ownConn bool
	js      jetstream.JetStream
	stream  jetstream.Stream
	name    string
	n       names
	o       Options
	log     *slog.Logger
	// expiryOff: items get no TTL, the stream does not allow them.
	expiryOff atomic.Bool

	mu        sync.Mutex
	consumers map[string]jetstream.Consumer
	leases    leaseTable
	topics    map[string]*topicWait
	closed    bool
	done      chan struct{}
}

var _ queue.Queue = (*Queue)(nil)

// Open connects (unless o.Conn is given), checks that JetStream is there and
// creates or updates the stream.
func Open(ctx context.Context, o Options) (*Queue, error) {
	if o.StreamName == "" {
		o.StreamName = DefaultStreamName
	}
	if o.Subject == "" {
		o.Subject = DefaultSubject
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ConsumerInactive <= 0 {
		o.ConsumerInactive = DefaultConsumerInactive
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if !validPrefix(o.Subject) {
		return nil, fault.New(fault.Invalid, "natsq: subject prefix %q is not a dot-separated subject without wildcards or spaces", o.Subject)
	}
	if strings.ContainsAny(o.StreamName, " \t\r\n.*>/\\") {
		return nil, fault.New(fault.Invalid, "natsq: stream name %q holds a space, '.', '*', '>' or a slash", o.StreamName)
	}
	if o.Replicas < 1 || o.Replicas > 5 {
		return nil, fault.New(fault.Invalid, "natsq: replicas %d is outside 1..5", o.Replicas)
	}
	q := &Queue{nc: o.Conn, name: o.StreamName, n: names{o.Subject}, o: o, log: o.Logger,
		consumers: map[string]jetstream.Consumer{}, topics: map[string]*topicWait{}, done: make(chan struct{})}
	q.leases.init()
	if q.nc == nil {
		if o.URL == "" {
			return nil, fault.New(fault.Invalid, "natsq: neither a URL nor a connection was given")
		}
		nc, err := nats.Connect(o.URL, nats.Name("sluice-queue"), nats.Timeout(o.Timeout),
			nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
		if err != nil {
			return nil, fault.New(fault.Unavailable, "natsq: cannot reach the NATS server at %s: %v", redact(o.URL), err).WithCause(err).Retry(0)
		}
		q.nc, q.ownConn = nc, true
	}
	fail := func(err error) (*Queue, error) {
		if q.ownConn {
			q.nc.Close()
		}
		return nil, err
	}
	js, err := jetstream.New(q.nc, jetstream.WithDefaultTimeout(o.Timeout))
	if err != nil {
		return fail(fault.New(fault.Internal, "natsq: %v", err).WithCause(err))
	}
	q.js = js
	c, cancel := q.bound(ctx)
	defer cancel()
	if _, err := js.AccountInfo(c); err != nil {
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return fail(fault.New(fault.Unavailable, "natsq: the NATS server at %s has no JetStream for this account: start it with -js (or a jetstream block in its config)",
				q.serverName()).WithCause(err))
		}
		return fail(q.unavailable("ask the server for its JetStream account", err))
	}
	storage := jetstream.FileStorage
	if o.Memory {
		storage = jetstream.MemoryStorage
	}
	cfg := jetstream.StreamConfig{
		Name: o.StreamName, Subjects: q.n.streamSubjects(), Retention: jetstream.WorkQueuePolicy,
		Storage: storage, Replicas: o.Replicas, AllowMsgSchedules: true, MaxMsgSize: -1,
		// Enabled on an existing stream too; the server refuses to turn it
		// off again (so a sluice from before expiries fails to open it).
		AllowMsgTTL: true,
		Description: "sluice work queue (internal/queue/natsq)",
	}
	st, err := js.CreateOrUpdateStream(c, cfg)
	// A server that failed inside (HTTP-like code 500, e.g. its store could
	// not be made under load) may well succeed a moment later: twice more.
	for try := 1; try <= 2 && serverFault(err) && c.Err() == nil; try++ {
		time.Sleep(time.Duration(try) * 100 * time.Millisecond)
		st, err = js.CreateOrUpdateStream(c, cfg)
	}
	if err != nil {
		return fail(fault.New(fault.Unavailable, "natsq: cannot create or update stream %s on %s (subjects %v, work-queue retention, %d replicas): %v",
			o.StreamName, q.serverName(), q.n.streamSubjects(), o.Replicas, err).WithCause(err))
	}
	// A server before 2.12 ignores the schedules setting and would keep a
	// delayed item in P.s.> for ever: refuse it here.
	if !st.CachedInfo().Config.AllowMsgSchedules {
		return fail(fault.New(fault.Unavailable, "natsq: the NATS server at %s (version %s) does not schedule messages: natsq needs nats-server 2.12 or later",
			q.serverName(), q.nc.ConnectedServerVersion()))
	}
	// Every server that schedules has TTLs (2.11); should one not take
	// the setting, items keep no expiry rather than be refused.
	if !st.CachedInfo().Config.AllowMsgTTL {
		q.turnOffExpiry("the server did not allow per-message TTLs on the stream")
	}
	q.stream = st
	return q, nil
}

// Enqueue implements queue.Queue.
func (q *Queue) Enqueue(ctx context.Context, m queue.Message) (bool, error) {
	if err := queue.CheckMessage(m); err != nil {
		return false, err
	}
	if err := q.check(); err != nil {
		return false, err
	}
	// Headers and subject take well under 2 KiB.
	if max := q.nc.MaxPayload(); int64(len(m.Payload))+2048 > max {
		return false, fault.New(fault.Invalid, "payload of item %q is %d bytes, over what the NATS server takes (max_payload %d bytes, less 2 KiB of headers): raise max_payload on the server",
			m.ID, len(m.Payload), max)
	}
	now := time.Now()
	msg := nats.NewMsg(q.n.item(m.Topic, m.ID))
	msg.Data = m.Payload
	msg.Header.Set(hdrTopic, m.Topic)
	msg.Header.Set(hdrID, m.ID)
	msg.Header.Set(hdrEnqueued, now.UTC().Format(time.RFC3339Nano))
	if m.Group != "" {
		msg.Header.Set(hdrGroup, m.Group)
	}
	// The sender's trace context (at most ~600 bytes), as NATS tooling and
	// sluice's consumers read it (Item.Trace).
	for _, h := range telemetry.MessageHeaders(ctx) {
		msg.Header.Set(h[0], h[1])
	}
	opts := []jetstream.PublishOpt{jetstream.WithExpectLastSequenceForSubject(0, q.n.anyState(m.Topic, m.ID))}
	due := now
	if m.NotBefore.After(now) {
		due = m.NotBefore
		// Not WithScheduleAt: it writes whole seconds, which would fire up to a
		// second early; the server reads fractions and fires at the exact time.
		msg.Header.Set("Nats-Schedule", "@at "+m.NotBefore.UTC().Format(time.RFC3339Nano))
		opts = append(opts, jetstream.WithScheduleTarget(msg.Subject))
		msg.Subject = q.n.sched(m.Topic, m.ID)
	}
	q.setExpiry(msg, m, now)
	c, cancel := q.bound(ctx)
	defer cancel()
	ack, err := q.js.PublishMsg(c, msg, opts...)
	if err != nil && ttlRefused(err) {
		// The stream was made again without TTLs since Open: store the item
		// without its expiry rather than lose it.
		q.turnOffExpiry("the stream refused a message with a TTL")
		clearExpiry(msg)
		ack, err = q.js.PublishMsg(c, msg, opts...)
	}
	if err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
			return false, nil
		}
		return false, q.unavailable("enqueue item "+strconv.Quote(m.ID), err)
	}
	if !m.NotBefore.After(now) {
		q.enqueued(m.Topic, ack.Sequence)
	}
	q.announce(m.Topic, due, ack.Sequence)
	return true, nil
}

// Close implements queue.Queue: waiters return, later calls fail, a
// connection Open made is closed (one given in Options.Conn is not).
func (q *Queue) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	close(q.done)
	var subs []*nats.Subscription
	for _, tw := range q.topics {
		if tw.sub != nil {
			subs = append(subs, tw.sub)
		}
	}
	q.mu.Unlock()
	for _, s := range subs {
		s.Unsubscribe()
	}
	if q.ownConn {
		q.nc.Close()
	}
	return nil
}

// consumer returns the topic's durable consumer, creating it on first use.
func (q *Queue) consumer(ctx context.Context, topic string) (jetstream.Consumer, error) {
	q.mu.Lock()
	c := q.consumers[topic]
	q.mu.Unlock()
	if c != nil {
		return c, nil
	}
	cfg := jetstream.ConsumerConfig{
		Durable: q.n.consumer(topic), FilterSubject: q.n.filter(topic),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.o.AckWait, MaxDeliver: -1,
		// Nacked and leased items stay pending: no cap, or a queue with many
		// delayed items would stop delivering new ones.
		MaxAckPending: -1, DeliverPolicy: jetstream.DeliverAllPolicy,
		Description: "sluice queue topic " + strconv.Quote(topic),
		// A topic nobody has leased from for this long loses its consumer
		// (a gateway's reply topic after the gateway is gone); its items
		// stay in the stream for a consumer made again on next use.
		InactiveThreshold: q.o.ConsumerInactive,
	}
	bc, cancel := q.bound(ctx)
	defer cancel()
	c, err := q.js.CreateOrUpdateConsumer(bc, q.name, cfg)
	if err != nil {
		return nil, q.unavailable("create the consumer of topic "+strconv.Quote(topic), err)
	}
	q.mu.Lock()
	q.consumers[topic] = c
	q.mu.Unlock()
	return c, nil
}

// serverFault reports whether err is a JetStream API error the server gave
// for a failure of its own (code 500).
func serverFault(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.Code >= 500
}

// consumerGone reports whether err says the topic's consumer no longer
// exists on the server (deleted by an operator, or by the server after
// ConsumerInactive unused); the cached one is then forgotten, so the next
// call makes it again. The stream still holds every unacked item, and a new
// consumer delivers them all (leases held on the old one end early).
func (q *Queue) consumerGone(topic string, err error) bool {
	if !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, nats.ErrNoResponders) {
		return false
	}
	q.mu.Lock()
	delete(q.consumers, topic)
	q.mu.Unlock()
	return true
}

// bound limits one request to Options.Timeout within ctx: a request whose
// answer is lost (the node that had it went down) fails after that and may be
// retried, rather than hold its caller until a long deadline.
func (q *Queue) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, q.o.Timeout)
}

func (q *Queue) check() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return closedErr()
	}
	return nil
}

func closedErr() error { return fault.New(fault.Unavailable, "the queue is closed") }

// unavailable wraps a server error; a context's own error passes as it is.
func (q *Queue) unavailable(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return fault.New(fault.Unavailable, "natsq: cannot %s on stream %s: %v", what, q.name, err).WithCause(err).Retry(0)
}

func (q *Queue) serverName() string {
	if u := q.nc.ConnectedUrlRedacted(); u != "" {
		return u
	}
	return redact(q.o.URL)
}

// redact hides the credentials of each URL in a comma-separated list.
func redact(urls string) string {
	var out []string
	for _, s := range strings.Split(urls, ",") {
		s = strings.TrimSpace(s)
		if u, err := url.Parse(s); err == nil && u.User != nil {
			s = u.Redacted()
		} else if err != nil && strings.Contains(s, "@") {
			s = "(a URL that does not parse)"
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}
