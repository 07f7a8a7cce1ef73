package bridge

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/natsq"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// agentEnv is an invoker (registry in a SQLite store, vault in memory) in
// front of a loopback mock agent named "mock", and the store.
func agentEnv(tb testing.TB, mock agent.MockOptions) (*agent.Invoker, *sqlite.DB) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	mock.Name = "mock"
	go func() { done <- agent.ServeMock(cctx, ln, mock) }()
	tb.Cleanup(func() { cancel(); <-done })
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	key, err := vault.GenerateMasterKey()
	if err != nil {
		tb.Fatal(err)
	}
	ring, err := vault.NewKeyring(key)
	if err != nil {
		tb.Fatal(err)
	}
	reg := agent.NewRegistry(agent.RegistryOptions{Store: db, Vault: vault.NewSealed(vault.NewMemoryRecords(), ring, vault.Options{}),
		Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}})
	if _, _, err := reg.Register(ctx, agenthttp.NewEntry("mock", "http://"+ln.Addr().String())); err != nil {
		tb.Fatal(err)
	}
	return agent.NewInvoker(agent.InvokerOptions{Registry: reg}), db
}

// jetStream starts an embedded nats-server with JetStream (file storage in
// a temporary directory) on a random port and opens a queue on it.
func jetStream(tb testing.TB) queue.Queue {
	tb.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: tb.TempDir(),
		NoLog: true, NoSigs: true, MaxPayload: 16<<20 + 4096})
	if err != nil {
		tb.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		tb.Fatal("nats-server did not start")
	}
	tb.Cleanup(ns.Shutdown)
	q, err := natsq.Open(ctx, natsq.Options{URL: ns.ClientURL()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { q.Close() })
	return q
}

var benchInput = json.RawMessage(`{"topic":"Climate Change Impact on Agriculture","depth":"comprehensive","sources":["scientific journals","government reports"]}`)

// benchCallers are the bench's three ways to reach the mock agent: directly
// through the invoker, and through the bridge on the local queue (the same
// SQLite store as the registry, as in `sluice serve`) and on JetStream.
func benchCallers(b *testing.B) map[string]Invoker {
	inv, db := agentEnv(b, agent.MockOptions{})
	// The local queue's worker is in the caller's process (as in `sluice
	// serve` on SQLite); JetStream's stands for one on another machine.
	bridged := func(q queue.Queue, sameProcess bool) Invoker {
		c := &Client{Queue: q}
		w := &Worker{Queue: q, Invoker: inv, Workers: 64}
		if sameProcess {
			w.Local = c
		}
		start(b, func(ctx context.Context) { _ = c.Run(ctx) })
		start(b, func(ctx context.Context) { _ = w.Run(ctx, "bench") })
		return c
	}
	return map[string]Invoker{"direct": inv, "local": bridged(local.New(db, nil), true), "jetstream": bridged(jetStream(b), false)}
}

var benchWays = []string{"direct", "local", "jetstream"}

// BenchmarkAgentTaskLatency is one task at a time: p50 and p99 of a call's
// duration. The bridge adds the difference to the direct figures.
func BenchmarkAgentTaskLatency(b *testing.B) {
	callers := benchCallers(b)
	for _, way := range benchWays {
		b.Run(way, func(b *testing.B) {
			inv := callers[way]
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				if _, err := inv.Invoke(ctx, "mock", "", benchInput, ""); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkAgentTaskThroughput is 64 callers at once: tasks per second.
func BenchmarkAgentTaskThroughput(b *testing.B) {
	callers := benchCallers(b)
	for _, way := range benchWays {
		b.Run(way, func(b *testing.B) {
			inv := callers[way]
			b.SetParallelism(32) // 64 callers on 2 cores
			t0 := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := inv.Invoke(ctx, "mock", "", benchInput, ""); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "tasks/s")
		})
	}
}
