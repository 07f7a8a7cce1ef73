package natsq_test

import (
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/natsq"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

// The trace context travels as the message's W3C headers: a message natsq
// sent under a span, and one another producer published with only those
// headers (nothing of the trace in its payload), both lease with it in
// Item.Trace. On the embedded server, and on SLUICE_TEST_NATS too when it
// is 2.12 or later.
func TestTraceHeadersAreRead(t *testing.T) {
	urls := map[string]string{"embedded": startServer(t, true).ClientURL()}
	if u := externalNATS(t); u != "" {
		urls["SLUICE_TEST_NATS"] = u
	}
	telemetrytest.Install(t)
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			o := natsq.Options{URL: url, StreamName: "TR" + randomHex(4), Subject: "tr" + randomHex(4)}
			t.Cleanup(func() { deleteStream(t, url, o.StreamName) })
			q, err := natsq.Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()

			sctx, span := telemetry.Start(ctx, "send", trace.SpanKindProducer)
			if _, err := q.Enqueue(sctx, queue.Message{Topic: "tasks", ID: "mine", Payload: []byte("x")}); err != nil {
				t.Fatal(err)
			}
			span.End()
			sc := span.SpanContext()
			mine := telemetry.Carrier{Traceparent: "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"}

			nc, err := nats.Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			other := telemetry.Carrier{Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
				Tracestate: "vendor=x", Baggage: "k=v"}
			msg := nats.NewMsg(o.Subject + ".q.tasks.other")
			msg.Data = []byte("y")
			for _, h := range other.Headers() {
				msg.Header.Set(h[0], h[1])
			}
			js, err := jetstream.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := js.PublishMsg(ctx, msg); err != nil {
				t.Fatal(err)
			}

			got := map[string]telemetry.Carrier{}
			deadline := time.Now().Add(10 * time.Second)
			for len(got) < 2 && time.Now().Before(deadline) {
				items, err := q.Lease(ctx, "tasks", "me", 10, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range items {
					got[string(it.Payload)] = it.Trace
				}
			}
			if got["x"] != mine {
				t.Errorf("natsq's own message: Item.Trace %+v, want %+v", got["x"], mine)
			}
			if got["y"] != other {
				t.Errorf("another producer's message: Item.Trace %+v, want %+v", got["y"], other)
			}
		})
	}
}

// externalNATS is SLUICE_TEST_NATS when it is set and natsq can run on it
// (nats-server 2.12 or later), else "".
func externalNATS(t *testing.T) string {
	url := os.Getenv("SLUICE_TEST_NATS")
	if url == "" {
		return ""
	}
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second))
	if err != nil {
		t.Fatalf("SLUICE_TEST_NATS=%s does not answer: %v", url, err)
	}
	defer nc.Close()
	if v := nc.ConnectedServerVersion(); !atLeast(v, 2, 12) {
		t.Logf("SLUICE_TEST_NATS is nats-server %s, older than natsq needs: the embedded server only", v)
		return ""
	}
	return url
}
