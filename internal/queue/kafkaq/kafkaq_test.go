package kafkaq_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/kafkaq"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

var ctx = context.Background()

func newCluster(t testing.TB) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

func open(t testing.TB, brokers []string) *kafkaq.Queue {
	t.Helper()
	q, err := kafkaq.Open(ctx, kafkaq.Options{Brokers: brokers, MaxWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// The contract on a fresh kfake cluster per test; a peer is another member
// of the same group.
func TestContract(t *testing.T) {
	brokers := map[queue.Queue][]string{}
	queuetest.RunSuite(t, queuetest.Suite{
		Open: func(t *testing.T) queue.Queue {
			b := newCluster(t)
			q := open(t, b)
			brokers[q] = b
			return q
		},
		Peer: func(t *testing.T, q queue.Queue) queue.Queue { return open(t, brokers[q]) },
		Unmet: map[queuetest.Part]string{
			queuetest.PeerAck: "a lease lives in the memory of the member that owns the item's partition; " +
				"another member answers Conflict",
			queuetest.PeerDuplicates: "only the member owning the id's partition knows it is queued; through another " +
				"member Enqueue answers true and the copy is dropped when read while the id is queued",
			queuetest.PeerAttempts: "attempts are counted in the memory of the member that owns the item's partition; " +
				"when a rebalance (the second member joining, a new topic) moves it between two leases, the new owner " +
				"counts from the copy in the log",
		},
	})
}

func TestOpenErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		o    kafkaq.Options
		kind fault.Kind
	}{
		{"no brokers", kafkaq.Options{}, fault.Invalid},
		{"bad prefix", kafkaq.Options{Brokers: []string{"127.0.0.1:1"}, Prefix: "a b"}, fault.Invalid},
		{"bad tiers", kafkaq.Options{Brokers: []string{"127.0.0.1:1"}, Tiers: []time.Duration{time.Minute, time.Second}}, fault.Invalid},
		{"unreachable", kafkaq.Options{Brokers: []string{"127.0.0.1:1"}, Timeout: time.Second}, fault.Unavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := kafkaq.Open(ctx, c.o)
			if err == nil {
				q.Close()
				t.Fatal("opened")
			}
			if fault.KindOf(err) != c.kind {
				t.Fatalf("error %q (kind %v), want %v", err, fault.KindOf(err), c.kind)
			}
		})
	}
}

// A member that closes with an item leased and another acked: the next
// member gets the leased one (at once), never the acked one, whose offset
// came first.
func TestItemsSurviveAMember(t *testing.T) {
	brokers := newCluster(t)
	q := open(t, brokers)
	for _, id := range []string{"a", "b"} {
		if ok, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: id, Payload: []byte(id)}); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	a, err := q.Lease(ctx, "t", "w", 1, time.Hour)
	if err != nil || len(a) != 1 || a[0].ID != "a" {
		t.Fatalf("lease a: %+v %v", a, err)
	}
	if err := q.Ack(ctx, a[0]); err != nil {
		t.Fatal(err)
	}
	if b, err := q.Lease(ctx, "t", "w", 1, time.Hour); err != nil || len(b) != 1 {
		t.Fatalf("lease b: %+v %v", b, err)
	}
	q.Close()

	q2 := open(t, brokers)
	defer q2.Close()
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		items, err := q2.Lease(ctx, "t", "next", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) > 0 {
			if len(items) != 1 || items[0].ID != "b" || items[0].Attempts != 1 {
				t.Fatalf("after the member left: %+v", items)
			}
			return
		}
		if err := q2.Wait(deadline, "t"); err != nil {
			t.Fatalf("b not delivered again: %v", err)
		}
	}
}

// With tracing on, a message carries its sender's traceparent as a Kafka
// header, for the broker's own tools and other consumers.
func TestMessagesCarryTheTraceparentHeader(t *testing.T) {
	telemetrytest.Install(t)
	b := newCluster(t)
	q := open(t, b)
	defer q.Close()
	sctx, span := telemetry.Start(ctx, "send", trace.SpanKindProducer)
	if _, err := q.Enqueue(sctx, queue.Message{Topic: "tasks", ID: "t1", Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	span.End()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b...), kgo.ConsumeRegex(), kgo.ConsumeTopics(".*"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	want := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		fctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(fctx)
		cancel()
		for _, r := range fs.Records() {
			for _, h := range r.Headers {
				if h.Key == "traceparent" {
					if string(h.Value) != want {
						t.Fatalf("traceparent header %q, want %q", h.Value, want)
					}
					return
				}
			}
		}
	}
	t.Fatal("no record with a traceparent header")
}

// A record another producer wrote with the W3C headers and nothing of the
// trace in its payload: the leased item carries that context (Item.Trace),
// and so does the copy a Nack writes to a retry topic.
func TestTraceHeadersOfAnotherProducerAreRead(t *testing.T) {
	b := newCluster(t)
	q := open(t, b)
	defer q.Close()
	// Enqueue makes the topic; the record below joins it.
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "tasks", ID: "first", Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	first, err := q.Lease(ctx, "tasks", "me", 1, time.Minute)
	if err != nil || len(first) != 1 || first[0].Trace != (telemetry.Carrier{}) {
		t.Fatalf("lease of an item sent without a trace: %+v %v", first, err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	want := telemetry.Carrier{Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		Tracestate: "vendor=x", Baggage: "k=v"}
	rec := &kgo.Record{Topic: kafkaq.DefaultPrefix + ".tasks", Key: []byte("other"), Value: []byte("y"), Headers: []kgo.RecordHeader{
		{Key: "sluice-topic", Value: []byte("tasks")}, {Key: "sluice-id", Value: []byte("other")},
		{Key: "traceparent", Value: []byte(want.Traceparent)}, {Key: "tracestate", Value: []byte(want.Tracestate)},
		{Key: "baggage", Value: []byte(want.Baggage)}, {Key: "unrelated", Value: []byte("z")},
	}}
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	it := leaseOne(t, q, "other")
	if it.Trace != want {
		t.Fatalf("Item.Trace %+v, want %+v", it.Trace, want)
	}
	if err := q.Nack(ctx, it, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if again := leaseOne(t, q, "other"); again.Trace != want || again.Attempts != 2 {
		t.Fatalf("after a Nack: Item.Trace %+v, attempt %d; want %+v, attempt 2", again.Trace, again.Attempts, want)
	}
}

// leaseOne leases item id of topic "tasks", waiting up to 20 s for it.
func leaseOne(t *testing.T, q *kafkaq.Queue, id string) queue.Item {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		items, err := q.Lease(ctx, "tasks", "me", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.ID == id {
				return it
			}
		}
		wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_ = q.Wait(wctx, "tasks")
		cancel()
	}
	t.Fatalf("item %s never leased", id)
	return queue.Item{}
}
