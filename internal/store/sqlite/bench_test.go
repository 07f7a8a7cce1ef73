package sqlite_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// The figures these give are in docs/performance.md ("Store and queue").

func benchDB(b *testing.B, maxBatch int) *sqlite.DB {
	b.Helper()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: b.TempDir(), MaxBatch: maxBatch})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.CreateAccount(ctx, store.Account{ID: "bench"}); err != nil {
		b.Fatal(err)
	}
	return db
}

var benchResult = json.RawMessage(`{"execution_id":"x","status":"success","results":{"f":[{"a":1,"b":"two"}]},"errors":[],"duration_ms":1}`)

// BenchmarkInsertLatency: one writer, one execution record per iteration:
// the latency of a single durable insert.
func BenchmarkInsertLatency(b *testing.B) {
	db := benchDB(b, sqlite.DefaultMaxBatch)
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := db.CreateExecution(ctx, storetest.BenchExecution(store.StatusRunning)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConcurrentWrites: 32 writers each inserting execution records,
// with group commit and without (one transaction per write).
func BenchmarkConcurrentWrites(b *testing.B) {
	for _, c := range []struct {
		name  string
		batch int
	}{{"group", sqlite.DefaultMaxBatch}, {"single", 1}} {
		b.Run(c.name, func(b *testing.B) {
			db := benchDB(b, c.batch)
			storetest.RunClients(b, 32, "writes/s", func() error {
				_, _, err := db.CreateExecution(ctx, storetest.BenchExecution(store.StatusRunning))
				return err
			})
		})
	}
}

// BenchmarkExecutionFlow: what the server writes per synchronous data
// workflow execution, from 32 concurrent clients: the record (running), the
// final status with its result, and two audit rows (request and operation).
// Async ones add a checkpoint per step (the "checkpointed" case: one step).
func BenchmarkExecutionFlow(b *testing.B) {
	for _, c := range []struct {
		name       string
		batch      int
		checkpoint bool
	}{{"group", sqlite.DefaultMaxBatch, false}, {"group-checkpointed", sqlite.DefaultMaxBatch, true}, {"single", 1, false}} {
		b.Run(c.name, func(b *testing.B) {
			db := benchDB(b, c.batch)
			storetest.RunClients(b, 32, "executions/s", func() error { return executionFlow(db, c.checkpoint) })
		})
	}
}

func executionFlow(db *sqlite.DB, checkpoint bool) error {
	e, _, err := db.CreateExecution(ctx, storetest.BenchExecution(store.StatusRunning))
	if err != nil {
		return err
	}
	if checkpoint {
		if err := db.SaveCheckpoint(ctx, e.ID, json.RawMessage(`{"version":1,"finished":["0"],"results":{"f":[{"a":1}]}}`)); err != nil {
			return err
		}
	}
	if err := db.UpdateExecution(ctx, "bench", e.ID, store.ExecutionUpdate{Status: store.StatusSuccess, Result: benchResult}); err != nil {
		return err
	}
	now := time.Now()
	return db.AppendAudit(ctx, []store.AuditRecord{
		{Time: now, RequestID: e.ID, AccountID: "bench", Method: "workflow.execute", Decision: store.DecisionAllow, LatencyMs: 1, Status: "200"},
		{Time: now, RequestID: e.ID, AccountID: "bench", Method: "workflow.execute", Operation: "FilterData", Decision: store.DecisionAllow, Status: "success"},
	})
}

// BenchmarkAuditBatch: one batch of audit records as the audit writer hands
// it over (64, the server's batch), the way a data workflow fills it (one
// request record, then one per operation). Per-record figures are the
// reported ones.
func BenchmarkAuditBatch(b *testing.B) {
	db := benchDB(b, sqlite.DefaultMaxBatch)
	recs := make([]store.AuditRecord, 64)
	now := time.Now()
	for i := range recs {
		recs[i] = store.AuditRecord{Time: now, RequestID: "exec-0123456789abcdef", AccountID: "bench", Method: "workflow.execute",
			Decision: store.DecisionAllow, LatencyMs: 1, Status: "succeeded"}
		if i%6 != 0 {
			recs[i].Operation = "f:FilterData"
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := db.AppendAudit(ctx, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}
