package byurl_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/byurl"
)

func TestBadURLs(t *testing.T) {
	const password = "hunter2-queue"
	cases := []struct{ url, want string }{
		{"amqp://127.0.0.1:5672", `scheme "amqp"`},
		{"nats://", "names no host"},
		{"nats://u:" + password + "@127.0.0.1:1?replicas=7", `replicas="7"; want a whole number from 1 to 5`},
		{"nats://u:" + password + "@127.0.0.1:1?stream=S&colour=red", `parameter "colour"`},
		{"kafka://u:" + password + "@127.0.0.1:9092", "holds user info"},
		{"kafka://127.0.0.1:9092?partitions=x", `partitions="x"`},
		{"%zz", "does not parse"},
	}
	for _, c := range cases {
		_, err := byurl.Open(context.Background(), c.url, nil)
		if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want Invalid with %q", c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), password) {
			t.Errorf("%s: the password is in the error: %v", c.url, err)
		}
	}
}

// A kafka:// URL reaches the brokers it names, and the queue works.
func TestKafka(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q, err := byurl.Open(context.Background(), "kafka://"+strings.Join(c.ListenAddrs(), ",")+"?prefix=byurl&partitions=2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	roundTrip(t, q)
}

func roundTrip(t *testing.T, q queue.Queue) {
	t.Helper()
	ctx := context.Background()
	if _, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "a", Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		items, err := q.Lease(ctx, "t", "me", 1, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) == 1 {
			if string(items[0].Payload) != "x" {
				t.Fatalf("payload %q", items[0].Payload)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the item never came")
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		_ = q.Wait(wctx, "t")
		cancel()
	}
}

// A nats:// URL with two servers (one dead) reaches JetStream, and the
// queue works.
func TestNATS(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	defer ns.Shutdown()
	addr := strings.TrimPrefix(ns.ClientURL(), "nats://")
	q, err := byurl.Open(context.Background(), "nats://"+addr+",127.0.0.1:1?stream=BYURL&subject=byurl.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	roundTrip(t, q)
}

// closedPort is a 127.0.0.1 port nothing listens on: one just released.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// A queue that cannot be opened comes back as a nil queue.Queue, not as a
// nil *natsq.Queue or *kafkaq.Queue inside a non-nil interface: the
// gateway's clean-up closes any queue that is not nil, and closing that
// typed nil panicked `sluice serve --queue nats://...`.
func TestFailedOpenIsNilInterface(t *testing.T) {
	for _, u := range []string{
		"nats://" + closedPort(t),
		"kafka://127.0.0.1:9092?prefix=" + strings.Repeat("p", 151),
	} {
		q, err := byurl.Open(context.Background(), u, nil)
		if err == nil {
			q.Close()
			t.Fatalf("%s: opened", u)
		}
		if q != nil {
			t.Errorf("%s: failed with %v but returned a non-nil queue.Queue (%T)", u, err, q)
		}
	}
}
