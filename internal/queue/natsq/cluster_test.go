package natsq_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/natsq"
)

// freePorts finds n ports free on loopback at this moment: a cluster's routes
// must be known before its nodes start.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// startCluster starts a three-node JetStream cluster in this process.
func startCluster(t *testing.T) []*server.Server {
	t.Helper()
	ports := freePorts(t, 3)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	var nodes []*server.Server
	for i, p := range ports {
		ns, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "sluice-test", Host: "127.0.0.1", Port: p},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		})
		if err != nil {
			t.Fatal(err)
		}
		ns.Start()
		t.Cleanup(ns.Shutdown)
		nodes = append(nodes, ns)
	}
	for _, ns := range nodes {
		if !ns.ReadyForConnections(20 * time.Second) {
			t.Fatal("a node did not start")
		}
	}
	return nodes
}

// A three-node cluster, an R3 stream, consumers at work; the node leading
// the stream is shut down mid-run. Every task is delivered and acked: none
// is lost.
func TestClusterNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	nodes := startCluster(t)
	var urls []string
	for _, ns := range nodes {
		urls = append(urls, ns.ClientURL())
	}
	url := strings.Join(urls, ",")
	o := natsq.Options{URL: url, StreamName: "CLUSTER", Subject: "cluster.q", Replicas: 3, Timeout: 2 * time.Second}
	var q *natsq.Queue
	deadline := time.Now().Add(60 * time.Second)
	for {
		var err error
		if q, err = natsq.Open(ctx, o); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not take the R3 stream: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	defer q.Close()

	const n = 300
	run, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	enqueue := func(from, to int) {
		for i := from; i < to; i++ {
			m := queue.Message{Topic: "tasks", ID: fmt.Sprintf("task-%03d", i), Payload: []byte(fmt.Sprint(i))}
			for {
				_, err := q.Enqueue(run, m) // false after a retry that had landed: queued all the same
				if err == nil {
					break
				}
				if run.Err() != nil {
					t.Errorf("enqueue %s: %v", m.ID, err)
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	enqueue(0, n/2)

	var (
		mu   sync.Mutex
		done = map[string]bool{}
		wg   sync.WaitGroup
		errs atomic.Int64
	)
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(done) }
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("w%d", w)
			for run.Err() == nil && count() < n {
				items, err := q.Lease(run, "tasks", owner, 5, 10*time.Second)
				if err != nil && errs.Add(1) <= 5 {
					t.Logf("%s: lease: %v", owner, err)
				}
				if err != nil || len(items) == 0 {
					wc, wcancel := context.WithTimeout(run, 200*time.Millisecond)
					q.Wait(wc, "tasks")
					wcancel()
					continue
				}
				for _, it := range items {
					for {
						err := q.Ack(run, it)
						// Conflict after a retry: the first delete landed and
						// its answer was lost, so the item is gone.
						if err == nil || fault.KindOf(err) == fault.Conflict || run.Err() != nil {
							break
						}
						time.Sleep(50 * time.Millisecond)
					}
					mu.Lock()
					done[it.ID] = true
					mu.Unlock()
				}
			}
		}()
	}

	// Once a third is done, stop the stream's leader while work goes on.
	for count() < n/3 && run.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	leader := streamLeader(t, urls, o.StreamName)
	for _, ns := range nodes {
		if ns.Name() == leader {
			t.Logf("shutting down %s, the stream's leader, after %d tasks", leader, count())
			ns.Shutdown()
		}
	}
	start := time.Now()
	enqueue(n/2, n)
	t.Logf("second half enqueued in %v", time.Since(start))
	wg.Wait()
	t.Logf("all done %v after the shutdown", time.Since(start))
	if got := count(); got != n {
		var missing []string
		for i := range n {
			if id := fmt.Sprintf("task-%03d", i); !done[id] {
				missing = append(missing, id)
			}
		}
		t.Fatalf("%d of %d tasks delivered and acked; lost: %v", got, n, missing)
	}
	// Nothing is left to deliver.
	if left, err := q.Lease(ctx, "tasks", "after", 10, time.Minute); err != nil || len(left) != 0 {
		t.Fatalf("left after all were acked: %d items, %v", len(left), err)
	}
}

func streamLeader(t *testing.T, urls []string, stream string) string {
	t.Helper()
	nc, err := nats.Connect(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info := s.CachedInfo()
	if info.Cluster == nil || info.Cluster.Leader == "" {
		t.Fatal("the stream has no leader")
	}
	return info.Cluster.Leader
}
