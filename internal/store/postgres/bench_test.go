package postgres_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// BenchmarkStoreWrites compares the two stores in one run on the write an
// asynchronous execution starts with: its record, then its first checkpoint
// (two durable writes). 1 client gives the latency of the pair, 32 clients
// the throughput. PostgreSQL runs on this machine (loopback), which flatters
// its round trips compared with a database across a network. The figures
// are in docs/storage.md ("PostgreSQL").
func BenchmarkStoreWrites(b *testing.B) {
	backends := append(slices.Clip(benchStores),
		// For comparison only: synchronous_commit=off (set per connection
		// in the DSN) answers before the WAL is flushed, so a crash of the
		// database server (not of sluice) can lose the last ~0.6 s of
		// acknowledged writes; the gap to "postgres" is the fsync per commit.
		benchStore{"postgres-async-commit", func(b *testing.B) store.Store {
			dsn := pgtest.NewDatabase(b)
			if strings.Contains(dsn, "?") {
				dsn += "&synchronous_commit=off"
			} else {
				dsn += "?synchronous_commit=off"
			}
			db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
			if err != nil {
				b.Fatal(err)
			}
			return db
		}})
	checkpoint := json.RawMessage(`{"version":1,"finished":["0"],"results":{"f":[{"a":1,"b":"two"}]}}`)
	for _, be := range backends {
		for _, clients := range []int{1, 32} {
			b.Run(fmt.Sprintf("%s/clients=%d", be.name, clients), func(b *testing.B) {
				s := be.open(b)
				defer s.Close()
				if _, err := s.CreateAccount(ctx, store.Account{ID: "bench"}); err != nil {
					b.Fatal(err)
				}
				var seq atomic.Int64
				write := func() error {
					id := fmt.Sprintf("ex-%d", seq.Add(1))
					e := store.Execution{ID: id, AccountID: "bench", ClientID: "c-" + id, Digest: "sha256:0123456789abcdef",
						Document: benchDoc, Input: json.RawMessage(`{"items":[{"a":1},{"a":2}]}`), Status: store.StatusRunning, Async: true, BudgetMs: 3_600_000}
					if _, _, err := s.CreateExecution(ctx, e); err != nil {
						return err
					}
					return s.SaveCheckpoint(ctx, id, checkpoint)
				}
				start := time.Now()
				b.ResetTimer()
				if clients == 1 {
					for range b.N {
						if err := write(); err != nil {
							b.Fatal(err)
						}
					}
				} else {
					storetest.SetClients(b, clients)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if err := write(); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				secs := time.Since(start).Seconds()
				b.ReportMetric(float64(b.N)/secs, "executions/s")
				b.ReportMetric(2*float64(b.N)/secs, "writes/s")
			})
		}
	}
}

// benchStore is a store to measure, opened afresh for each benchmark.
type benchStore struct {
	name string
	open func(b *testing.B) store.Store
}

// benchStores are the two stores with their default options.
var benchStores = []benchStore{
	{"sqlite", func(b *testing.B) store.Store {
		db, err := sqlite.Open(ctx, sqlite.Options{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		return db
	}},
	{"postgres", func(b *testing.B) store.Store {
		db, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.NewDatabase(b)})
		if err != nil {
			b.Fatal(err)
		}
		return db
	}},
}

var benchDoc = []byte(`{"operationUpdate":{"operationId":"f","operation":{"FilterData":{"inputPath":"/input/items","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/out"}}}}` + "\n" + `{"beginExecution":{"operationOrder":["f"]}}`)
