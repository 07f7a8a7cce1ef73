package natsq_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/natsq"
	"github.com/sluicehq/sluice/internal/queue/queuetest"
)

var ctx = context.Background()

// startServer starts an embedded nats-server with JetStream on a random
// port, its store in a temporary directory.
func startServer(t testing.TB, jetStream bool) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: -1, JetStream: jetStream, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true, MaxPayload: 16<<20 + 4096,
	})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

var streams atomic.Int64

// suite opens each test's queue on a stream and subject prefix of its own,
// on the server at url; a peer is another connection to the same stream.
func suite(t *testing.T, url string) queuetest.Suite {
	run := randomHex(4)
	opts := map[queue.Queue]natsq.Options{}
	open := func(t *testing.T, o natsq.Options) queue.Queue {
		q, err := natsq.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		opts[q] = o
		return q
	}
	return queuetest.Suite{
		Open: func(t *testing.T) queue.Queue {
			n := streams.Add(1)
			o := natsq.Options{URL: url, StreamName: fmt.Sprintf("T%s_%d", run, n), Subject: fmt.Sprintf("t%s.n%d", run, n)}
			t.Cleanup(func() { deleteStream(t, url, o.StreamName) })
			return open(t, o)
		},
		Peer: func(t *testing.T, q queue.Queue) queue.Queue { return open(t, opts[q]) },
		Unmet: map[queuetest.Part]string{
			queuetest.FairGroups: "a topic's consumer hands its messages out in stream order and a lease sees only the " +
				"next n, so it cannot reach another group's item behind one group's backlog (fairness would need a " +
				"consumer per group); items keep their group, and the execution workers' account limits and parked " +
				"Waits bound what one account holds",
		},
	}
}

func deleteStream(t *testing.T, url, name string) {
	nc, err := nats.Connect(url)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if err := js.DeleteStream(ctx, name); err != nil {
		t.Logf("cleanup of stream %s: %v", name, err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func TestContractEmbedded(t *testing.T) {
	ns := startServer(t, true)
	queuetest.RunSuite(t, suite(t, ns.ClientURL()))
}

// SLUICE_TEST_NATS=nats://host:4222 runs the contract against that server,
// on streams named for this run, deleted after each test.
func TestContractExternal(t *testing.T) {
	url := os.Getenv("SLUICE_TEST_NATS")
	if url == "" {
		t.Skip("SLUICE_TEST_NATS is not set")
	}
	// natsq needs message scheduling (nats-server 2.12+). An older external
	// server (Debian's is 2.9) cannot run it at all; the embedded server
	// above runs the whole suite, and Open refusing an old server is tested
	// in natsq.Open (a clear Unavailable naming the version).
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second))
	if err != nil {
		t.Fatalf("SLUICE_TEST_NATS=%s does not answer: %v", url, err)
	}
	version := nc.ConnectedServerVersion()
	nc.Close()
	if !atLeast(version, 2, 12) {
		// What can be tested against it: Open refuses it, saying why.
		o := natsq.Options{URL: url, StreamName: "T" + randomHex(4), Subject: "t" + randomHex(4)}
		t.Cleanup(func() { deleteStream(t, url, o.StreamName) })
		_, err := natsq.Open(ctx, o)
		if err == nil || !strings.Contains(err.Error(), "needs nats-server 2.12") {
			t.Fatalf("Open on nats-server %s: %v", version, err)
		}
		t.Skipf("the NATS server at SLUICE_TEST_NATS is %s; natsq needs 2.12 or later (Open refuses it, checked)", version)
	}
	queuetest.RunSuite(t, suite(t, url))
}

func TestOpenErrors(t *testing.T) {
	noJS := startServer(t, false)
	for _, c := range []struct {
		name string
		o    natsq.Options
		kind fault.Kind
		want string
	}{
		{"unreachable", natsq.Options{URL: "nats://user:secret@127.0.0.1:1", Timeout: time.Second}, fault.Unavailable, "cannot reach the NATS server at nats://user:xxxxx@127.0.0.1:1"},
		{"no jetstream", natsq.Options{URL: noJS.ClientURL()}, fault.Unavailable, "has no JetStream"},
		{"no url", natsq.Options{}, fault.Invalid, "neither a URL nor a connection"},
		{"bad prefix", natsq.Options{URL: noJS.ClientURL(), Subject: "a.*"}, fault.Invalid, "subject prefix"},
		{"bad stream", natsq.Options{URL: noJS.ClientURL(), StreamName: "a.b"}, fault.Invalid, "stream name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := natsq.Open(ctx, c.o)
			if err == nil {
				q.Close()
				t.Fatal("opened")
			}
			if fault.KindOf(err) != c.kind || !contains(err.Error(), c.want) || contains(err.Error(), "secret") {
				t.Fatalf("error %q (kind %v), want %v with %q and no secret", err, fault.KindOf(err), c.kind, c.want)
			}
		})
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// atLeast reports whether version (major.minor.patch...) is at least
// major.minor.
func atLeast(version string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(version, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
