package natsq_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/natsq"
)

// A topic's consumer deleted under a running queue (by an operator, or by
// the server after ConsumerInactive without a consumer): the next Lease makes
// it again, and the items still in the stream are delivered.
func TestConsumerDeletedUnderTheQueue(t *testing.T) {
	ns := startServer(t, true)
	o := natsq.Options{URL: ns.ClientURL(), StreamName: "GONE", Subject: "gone.q"}
	q, err := natsq.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, id := range []string{"a", "b"} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: id, Payload: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := q.Lease(ctx, "t", "me", 1, time.Minute)
	if err != nil || len(got) != 1 {
		t.Fatalf("lease: %v %v", got, err)
	}
	if err := q.Ack(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	st, err := js.Stream(ctx, "GONE")
	if err != nil {
		t.Fatal(err)
	}
	names := st.ConsumerNames(ctx)
	n := 0
	for name := range names.Name() {
		if err := js.DeleteConsumer(ctx, "GONE", name); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("%d consumers deleted, want 1", n)
	}
	got, err = q.Lease(ctx, "t", "me", 10, time.Minute)
	if err != nil || len(got) != 1 || string(got[0].Payload) != "b" {
		t.Fatalf("lease after the consumer was deleted: %+v %v; want item b", got, err)
	}
	if err := q.Ack(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	c, err := st.Consumer(ctx, "q-t")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := c.Info(ctx); err != nil || info.Config.InactiveThreshold != natsq.DefaultConsumerInactive {
		t.Fatalf("consumer made again with inactive threshold %v (%v), want %v", info.Config.InactiveThreshold, err, natsq.DefaultConsumerInactive)
	}
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := q.Wait(wctx, "t"); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait on a topic whose consumer was made again: %v", err)
	}
}
