package natsq_test

import (
	"bytes"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/natsq"
)

// queuetest.RunExpiry does not apply to natsq: it drives expiry with a fake
// clock and the queue's Sweep, and on JetStream the server's own clock
// deletes an expired message (no sweep, nothing to count). These tests are
// its counterpart on a real server: what expires goes unread, what does not
// stays, and the TTL is on the message only when it has an expiry.

// The departed gateway's results topic: its consumer exists (the gateway
// leased from it once), then items arrive that nobody leases. One that
// expires soon leaves the stream unread; the others stay, and a delayed one
// expires counted from its first delivery time.
func TestExpiredItemsLeaveTheStream(t *testing.T) {
	ns := startServer(t, true)
	for _, memory := range []bool{false, true} {
		name := "file"
		if memory {
			name = "memory"
		}
		t.Run(name, func(t *testing.T) {
			o := natsq.Options{URL: ns.ClientURL(), StreamName: "EXP_" + name, Subject: "exp." + name, Memory: memory}
			q := open(t, o)
			st := stream(t, ns.ClientURL(), o.StreamName)
			if !st.CachedInfo().Config.AllowMsgTTL {
				t.Fatal("the stream does not allow per-message TTLs")
			}
			if got, err := q.Lease(ctx, "t", "gateway", 10, time.Minute); err != nil || len(got) != 0 {
				t.Fatalf("lease of the empty topic: %v %v", got, err)
			}
			now := time.Now()
			enqueue(t, q, queue.Message{Topic: "t", ID: "soon", Payload: []byte("a"), ExpiresAt: now.Add(time.Second)})
			enqueue(t, q, queue.Message{Topic: "t", ID: "expired", ExpiresAt: now.Add(-time.Minute)})
			enqueue(t, q, queue.Message{Topic: "t", ID: "later", ExpiresAt: now.Add(time.Hour)})
			enqueue(t, q, queue.Message{Topic: "t", ID: "never"})
			enqueue(t, q, queue.Message{Topic: "t", ID: "delayed-soon", NotBefore: now.Add(time.Second), ExpiresAt: now.Add(2 * time.Second)})
			enqueue(t, q, queue.Message{Topic: "t", ID: "delayed-later", NotBefore: now.Add(time.Second), ExpiresAt: now.Add(time.Hour)})

			item := func(id string) string { return o.Subject + ".q.t." + id }
			if h := header(t, st, item("never")); h.Get(jetstream.MsgTTLHeader) != "" {
				t.Fatalf("an item without expiry carries Nats-TTL %q", h.Get(jetstream.MsgTTLHeader))
			}
			if ttl := header(t, st, item("later")).Get(jetstream.MsgTTLHeader); ttl != "3600s" {
				t.Fatalf("an item expiring in an hour carries Nats-TTL %q, want 3600s", ttl)
			}

			// Expiries are server time: wait for them, with room for a
			// loaded machine, and assert no timing.
			waitFor(t, 30*time.Second, "the expired items to leave the stream", func() bool {
				return subjects(t, st) == strings.Join([]string{item("delayed-later"), item("later"), item("never")}, ",")
			})
			if ttl := header(t, st, item("delayed-later")).Get(jetstream.MsgTTLHeader); ttl != "3599s" {
				t.Fatalf("a delayed item expiring an hour after its enqueue carries Nats-TTL %q, want 3599s (from its delivery time)", ttl)
			}
			got, err := q.Lease(ctx, "t", "w", 10, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if ids := itemIDs(got); ids != "delayed-later,later,never" {
				t.Fatalf("leased %q after the expiries, want delayed-later,later,never", ids)
			}
			// An expired id may be enqueued again, like an acked one.
			enqueue(t, q, queue.Message{Topic: "t", ID: "soon"})
		})
	}
}

// The server deletes an item whose TTL passes while it is leased (the table
// queues keep a held item until its lease ends): the holder's lease is lost.
func TestItemExpiringUnderItsLease(t *testing.T) {
	ns := startServer(t, true)
	o := natsq.Options{URL: ns.ClientURL(), StreamName: "EXP_HELD", Subject: "exp.held"}
	q := open(t, o)
	st := stream(t, ns.ClientURL(), o.StreamName)
	enqueue(t, q, queue.Message{Topic: "t", ID: "held", ExpiresAt: time.Now().Add(time.Second)})
	got, err := q.Lease(ctx, "t", "w", 1, 10*time.Minute)
	if err != nil || len(got) != 1 {
		t.Fatalf("lease: %v %v", got, err)
	}
	waitFor(t, 30*time.Second, "the held item to expire", func() bool { return subjects(t, st) == "" })
	if err := q.Ack(ctx, got[0]); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("ack of an item that expired under its lease: %v, want a Conflict", err)
	}
}

// A stream made before expiries (no AllowMsgTTL) is updated to allow them
// when the queue opens it.
func TestOpenAllowsTTLsOnAnOlderStream(t *testing.T) {
	ns := startServer(t, true)
	o := natsq.Options{URL: ns.ClientURL(), StreamName: "EXP_OLD", Subject: "exp.old"}
	js := jsOf(t, ns.ClientURL())
	if _, err := js.CreateStream(ctx, olderStreamConfig(o)); err != nil {
		t.Fatal(err)
	}
	q := open(t, o)
	st := stream(t, ns.ClientURL(), o.StreamName)
	if !st.CachedInfo().Config.AllowMsgTTL {
		t.Fatal("Open left the older stream without per-message TTLs")
	}
	enqueue(t, q, queue.Message{Topic: "t", ID: "soon", ExpiresAt: time.Now().Add(time.Second)})
	waitFor(t, 30*time.Second, "the expired item to leave the updated stream", func() bool { return subjects(t, st) == "" })
}

// The stream is made again without TTLs under a running queue (by a sluice
// from before expiries, say): items are still enqueued, without their
// expiry, and the queue says so once.
func TestStreamRefusingTTLs(t *testing.T) {
	ns := startServer(t, true)
	var logs syncBuffer
	o := natsq.Options{URL: ns.ClientURL(), StreamName: "EXP_NOTTL", Subject: "exp.nottl",
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	q := open(t, o)
	js := jsOf(t, ns.ClientURL())
	if err := js.DeleteStream(ctx, o.StreamName); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, olderStreamConfig(o)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		enqueue(t, q, queue.Message{Topic: "t", ID: id, ExpiresAt: time.Now().Add(time.Second)})
	}
	st := stream(t, ns.ClientURL(), o.StreamName)
	if h := header(t, st, o.Subject+".q.t.a"); h.Get(jetstream.MsgTTLHeader) != "" {
		t.Fatalf("an item on a stream without TTLs carries Nats-TTL %q", h.Get(jetstream.MsgTTLHeader))
	}
	if n := strings.Count(logs.String(), "expiry (ExpiresAt) is not applied"); n != 1 {
		t.Fatalf("said %d times that expiry is off, want once:\n%s", n, logs.String())
	}
	got, err := q.Lease(ctx, "t", "w", 10, time.Minute)
	if err != nil || itemIDs(got) != "a,b,c" {
		t.Fatalf("leased %q (%v), want a,b,c", itemIDs(got), err)
	}
}

// olderStreamConfig is the stream natsq made before expiries.
func olderStreamConfig(o natsq.Options) jetstream.StreamConfig {
	return jetstream.StreamConfig{Name: o.StreamName, Subjects: []string{o.Subject + ".q.>", o.Subject + ".s.>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: 1,
		AllowMsgSchedules: true, MaxMsgSize: -1}
}

func open(t *testing.T, o natsq.Options) *natsq.Queue {
	t.Helper()
	q, err := natsq.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func enqueue(t *testing.T, q queue.Queue, m queue.Message) {
	t.Helper()
	ok, err := q.Enqueue(ctx, m)
	if err != nil || !ok {
		t.Fatalf("enqueue %s: %v %v", m.ID, ok, err)
	}
}

func jsOf(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func stream(t *testing.T, url, name string) jetstream.Stream {
	t.Helper()
	st, err := jsOf(t, url).Stream(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// header returns the headers of the message stored on subject.
func header(t *testing.T, st jetstream.Stream, subject string) nats.Header {
	t.Helper()
	m, err := st.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		t.Fatalf("no message on %s: %v", subject, err)
	}
	return m.Header
}

// subjects lists the subjects of the messages in the stream, sorted.
func subjects(t *testing.T, st jetstream.Stream) string {
	t.Helper()
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for s, n := range info.State.Subjects {
		for range n {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func itemIDs(items []queue.Item) string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func waitFor(t *testing.T, limit time.Duration, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
