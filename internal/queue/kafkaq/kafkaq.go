// Package kafkaq is the Queue on Kafka (franz-go), for sites that already run
// Kafka as the bridge transport. Kafka is a log, not a queue: it has no
// per-message lease, ack or delayed redelivery, so those live in the memory
// of the consumer that owns a partition, and what the contract needs of the
// log is kept with retry topics and committed offsets.
//
// Layout: a topic per queue topic, P.TOPIC (P is Options.Prefix), records
// keyed by item id, so every copy of an id lands on one partition; and one
// retry topic per delay tier, P.retry.TIER (Options.Tiers: 1s, 10s, 1m, 10m,
// 1h, 6h), shared by the queue topics, whose records carry the queue topic,
// the id, the attempts so far and the not-before time in headers.
//
// Consumption: each Queue is a member of one consumer group (Options.Group)
// over every topic under P (a regex subscription, so new queue topics join
// as they are created). Kafka assigns each partition to one member; that
// member reads its records into memory, and its Lease, Ack, Nack and Extend
// act there:
//   - Lease takes the due items of the topic from memory, oldest first, and
//     gives each a new random token; a lease that runs out makes the item
//     due again, and its next lease gets a new token, so the old holder's
//     Ack is a Conflict. Before it looks, Lease waits (up to Options.CatchUp)
//     until this member has read what it produced itself to partitions it
//     owns, so an Enqueue followed by a Lease through one Queue sees the item.
//   - Ack drops the item; its offset counts as done.
//   - Nack with a delay produces a copy to the smallest tier at least that
//     long, with a not-before header, then drops the item; Nack(0) makes it
//     due again in memory. Enqueue with NotBefore produces to a tier at once.
//     Records of a tier are held in memory until their time.
//   - Offsets are committed in the background (Options.CommitEvery) up to the
//     lowest record of each partition not yet done.
//
// What this meets, exactly: within one Queue every case of the contract
// suite (leases, tokens, duplicates, delays, order by enqueue time, Wait);
// an item is never lost (a record leaves the uncommitted part of its
// partition only when it was acked, or its copy was durably produced).
// What it does not (declared to the suite):
//   - An item leased through one Queue is acked, nacked and extended only
//     through that Queue: the lease lives in its memory (PeerAck).
//   - Enqueue through another Queue than the one owning the id's partition
//     answers true for an id still queued; the copy is dropped when read while
//     the id is queued, so the item is delivered once (PeerDuplicates). A
//     Queue refuses an id it produced itself for at most Options.DedupWindow
//     when the id's partition belongs to another member.
//   - After a crash or a rebalance, items of a partition above its lowest
//     unfinished record are read again by the next owner: acked ones are
//     delivered again (at least once, as the contract allows, but an acked
//     item can come back), and leases held in the old owner's memory are
//     gone (the items are due at once, not at their lease's end).
//   - Wait wakes on what this member reads; items on partitions owned by
//     others are leased only through their owners.
package kafkaq

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Defaults of Options.
const (
	DefaultPrefix      = "sluice.queue"
	DefaultGroup       = "sluice-queue"
	DefaultPartitions  = 4
	DefaultCatchUp     = 10 * time.Second
	DefaultCommitEvery = 250 * time.Millisecond
	DefaultDedupWindow = time.Minute
	DefaultMaxWait     = 5 * time.Second
	DefaultTimeout     = 10 * time.Second
)

// DefaultTiers are the retry topics' delays.
var DefaultTiers = []time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour}

// Headers of every record.
const (
	hdrTopic     = "sluice-topic"
	hdrID        = "sluice-id"
	hdrEnqueued  = "sluice-enqueued"   // RFC 3339 with nanoseconds
	hdrNotBefore = "sluice-not-before" // RFC 3339 with nanoseconds
	hdrAttempts  = "sluice-attempts"   // deliveries before this record
	hdrGroup     = "sluice-group"      // queue.Message.Group, absent when ""
)

// Options configure Open.
type Options struct {
	// Brokers to bootstrap from (host:port).
	Brokers []string
	// Prefix of every topic of this queue; default sluice.queue.
	Prefix string
	// Group is the consumer group every Queue of one queue shares; default
	// sluice-queue.
	Group string
	// Partitions and ReplicationFactor of topics this queue creates; default
	// 4 and the brokers' default.
	Partitions        int32
	ReplicationFactor int16
	// Tiers are the delays of the retry topics; default DefaultTiers.
	Tiers []time.Duration
	// CatchUp bounds how long a Lease waits to read what this Queue produced.
	CatchUp time.Duration
	// CommitEvery is the period of offset commits; default 250 ms.
	CommitEvery time.Duration
	// DedupWindow bounds how long an id this Queue produced to a partition
	// it does not own is refused; default 1 min.
	DedupWindow time.Duration
	// MaxWait bounds one Wait; default 5 s.
	MaxWait time.Duration
	// Timeout bounds each request within the caller's context; default 10 s.
	Timeout time.Duration
	// Logger receives what the queue has to say (nil: nothing is logged).
	Logger *slog.Logger
	// ClientOptions are added to the franz-go client's (TLS, SASL...).
	ClientOptions []kgo.Opt
}

// Queue is the Kafka queue.
type Queue struct {
	o     Options
	cl    *kgo.Client
	adm   *kadm.Client
	log   *slog.Logger
	tiers []tier

	topicsMu sync.Mutex
	created  map[string]bool // Kafka topics known to exist

	st    state
	stop  context.CancelFunc
	polls chan struct{} // closed when the poll loop ends
	done  chan struct{}
}

type tier struct {
	delay time.Duration
	topic string
}

var _ queue.Queue = (*Queue)(nil)

// Open connects, creates the retry topics and joins the group.
func Open(ctx context.Context, o Options) (*Queue, error) {
	if len(o.Brokers) == 0 {
		return nil, fault.New(fault.Invalid, "kafkaq: no brokers given")
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if !validTopic(o.Prefix) {
		return nil, fault.New(fault.Invalid, "kafkaq: prefix %q is not made of [A-Za-z0-9._-] or is over 150 bytes", o.Prefix)
	}
	if o.Group == "" {
		o.Group = DefaultGroup
	}
	if o.Partitions <= 0 {
		o.Partitions = DefaultPartitions
	}
	if o.ReplicationFactor == 0 {
		o.ReplicationFactor = -1
	}
	if len(o.Tiers) == 0 {
		o.Tiers = DefaultTiers
	}
	setDefault(&o.CatchUp, DefaultCatchUp)
	setDefault(&o.CommitEvery, DefaultCommitEvery)
	setDefault(&o.DedupWindow, DefaultDedupWindow)
	setDefault(&o.MaxWait, DefaultMaxWait)
	setDefault(&o.Timeout, DefaultTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	q := &Queue{o: o, log: o.Logger, created: map[string]bool{}, polls: make(chan struct{}), done: make(chan struct{})}
	q.st.init()
	for i, d := range o.Tiers {
		if d <= 0 || i > 0 && d <= o.Tiers[i-1] {
			return nil, fault.New(fault.Invalid, "kafkaq: tier %d (%v) must be positive and longer than the one before", i, d)
		}
		q.tiers = append(q.tiers, tier{d, o.Prefix + ".retry." + tierName(d)})
	}
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(o.Brokers...),
		kgo.ConsumerGroup(o.Group),
		kgo.ConsumeRegex(),
		kgo.ConsumeTopics("^" + regexp.QuoteMeta(o.Prefix+".")),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(500 * time.Millisecond),
		kgo.MetadataMinAge(100 * time.Millisecond),
		kgo.MetadataMaxAge(10 * time.Second),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.OnPartitionsAssigned(q.assigned),
		kgo.OnPartitionsRevoked(q.revoked),
		kgo.OnPartitionsLost(q.lost),
	}, o.ClientOptions...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fault.New(fault.Invalid, "kafkaq: %v", err).WithCause(err)
	}
	q.cl, q.adm = cl, kadm.NewClient(cl)
	c, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := cl.Ping(c); err != nil {
		cl.Close()
		return nil, fault.New(fault.Unavailable, "kafkaq: cannot reach the Kafka brokers %v: %v", o.Brokers, err).WithCause(err).Retry(0)
	}
	var tierTopics []string
	for _, t := range q.tiers {
		tierTopics = append(tierTopics, t.topic)
	}
	if err := q.ensureTopics(c, tierTopics...); err != nil {
		cl.Close()
		return nil, err
	}
	pctx, stop := context.WithCancel(context.Background())
	q.stop = stop
	go q.poll(pctx)
	go q.commitLoop(pctx)
	return q, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

func tierName(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// tierFor picks the smallest tier at least d long (the last for longer).
func (q *Queue) tierFor(d time.Duration) string {
	for _, t := range q.tiers {
		if t.delay >= d {
			return t.topic
		}
	}
	return q.tiers[len(q.tiers)-1].topic
}

// mainTopic is the Kafka topic of a queue topic.
func (q *Queue) mainTopic(topic string) string { return q.o.Prefix + "." + key(topic) }

// Enqueue implements queue.Queue.
func (q *Queue) Enqueue(ctx context.Context, m queue.Message) (bool, error) {
	if err := queue.CheckMessage(m); err != nil {
		return false, err
	}
	if err := q.check(); err != nil {
		return false, err
	}
	now := time.Now()
	kt := q.mainTopic(m.Topic)
	if err := q.ensureTopics(ctx, kt); err != nil {
		return false, err
	}
	if !q.st.reserve(m.Topic, m.ID, now.Add(q.o.DedupWindow)) {
		return false, nil
	}
	rec := &kgo.Record{Topic: kt, Key: []byte(m.ID), Value: m.Payload}
	rec.Headers = []kgo.RecordHeader{
		{Key: hdrTopic, Value: []byte(m.Topic)}, {Key: hdrID, Value: []byte(m.ID)},
		{Key: hdrEnqueued, Value: []byte(now.UTC().Format(time.RFC3339Nano))},
	}
	if m.Group != "" {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: hdrGroup, Value: []byte(m.Group)})
	}
	// The sender's trace context, as Kafka's own tracing and sluice's
	// consumers read it (Item.Trace).
	for _, h := range telemetry.MessageHeaders(ctx) {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: h[0], Value: []byte(h[1])})
	}
	if m.NotBefore.After(now) {
		rec.Topic = q.tierFor(m.NotBefore.Sub(now))
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: hdrNotBefore, Value: []byte(m.NotBefore.UTC().Format(time.RFC3339Nano))})
	}
	if err := q.produce(ctx, rec); err != nil {
		q.st.unreserve(m.Topic, m.ID)
		return false, err
	}
	return true, nil
}

// produce writes rec and waits for the brokers' acknowledgement; the offset
// is noted so that Lease reads up to it.
func (q *Queue) produce(ctx context.Context, rec *kgo.Record) error {
	c, cancel := context.WithTimeout(ctx, q.o.Timeout)
	defer cancel()
	res := q.cl.ProduceSync(c, rec)
	if err := res.FirstErr(); err != nil {
		if errors.Is(err, kerr.MessageTooLarge) || errors.Is(err, kerr.RecordListTooLarge) {
			return fault.New(fault.Invalid, "kafkaq: the record of item %q (%d bytes) is over the topic's max.message.bytes: raise it", rec.Key, len(rec.Value)).WithCause(err)
		}
		return q.unavailable("produce to "+rec.Topic, err)
	}
	q.st.produced(tp{rec.Topic, rec.Partition}, rec.Offset)
	return nil
}

// ensureTopics creates the Kafka topics not yet known to exist and makes the
// group look at them.
func (q *Queue) ensureTopics(ctx context.Context, topics ...string) error {
	q.topicsMu.Lock()
	defer q.topicsMu.Unlock()
	var missing []string
	for _, t := range topics {
		if !q.created[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	c, cancel := context.WithTimeout(ctx, q.o.Timeout)
	defer cancel()
	res, err := q.adm.CreateTopics(c, q.o.Partitions, q.o.ReplicationFactor, nil, missing...)
	if err != nil {
		return q.unavailable("create topics "+strings.Join(missing, ", "), err)
	}
	for _, r := range res.Sorted() {
		if r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists) {
			return q.unavailable("create topic "+r.Topic, r.Err)
		}
		q.created[r.Topic] = true
	}
	q.cl.ForceMetadataRefresh()
	return nil
}

// Close implements queue.Queue: waiters return, later calls fail, offsets
// are committed and the member leaves the group.
func (q *Queue) Close() error {
	if !q.st.close() {
		return nil
	}
	close(q.done)
	q.stop()
	<-q.polls
	c, cancel := context.WithTimeout(context.Background(), q.o.Timeout)
	defer cancel()
	q.commit(c)
	q.cl.LeaveGroupContext(c)
	q.cl.Close()
	return nil
}

func (q *Queue) check() error {
	if q.st.isClosed() {
		return closedErr()
	}
	return nil
}

func closedErr() error { return fault.New(fault.Unavailable, "the queue is closed") }

func (q *Queue) unavailable(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fault.New(fault.Unavailable, "kafkaq: cannot %s: %v", what, err).WithCause(err).Retry(0)
}

func validTopic(s string) bool {
	if s == "" || len(s) > 150 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// key turns a queue topic into a Kafka topic name part: itself when short
// and made of [A-Za-z0-9-], otherwise "_" and 40 hex digits of its SHA-256
// (the two forms cannot meet: '_' starts only the second).
func key(s string) string {
	ok := len(s) <= 64
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
	}
	if ok {
		return s
	}
	return "_" + sha(s)[:40]
}
