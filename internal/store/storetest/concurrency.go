package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func testLocalStorageAdapter(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	var ls op.Storage = store.LocalStorage{KV: s}
	area := func(acct string) op.Area { return op.Area{Storage: a2e.StorageLocal, Account: acct} }
	value := map[string]any{"n": 1.5, "list": []any{"a", true, nil}}
	must(t, ls.Put(ctx, area("alice"), "cfg/main", value))
	got, ok, err := ls.Get(ctx, area("alice"), "cfg/main")
	must(t, err)
	if !ok || fmt.Sprint(got) != fmt.Sprint(value) {
		t.Fatalf("got %v %v", got, ok)
	}
	if _, ok, _ := ls.Get(ctx, area("bob"), "cfg/main"); ok {
		t.Fatal("bob reads alice's value")
	}
	if _, ok, err := ls.Get(ctx, area("alice"), "nope"); ok || err != nil {
		t.Fatalf("missing key: %v %v", ok, err)
	}
	// The storage key rule of StoreData applies, with a DataError.
	err = ls.Put(ctx, area("alice"), "../escape", 1)
	wantKind(t, err, fault.Invalid, "escaping key")
	if fe := fault.From(err); fe.SpecType() != fault.DataError {
		t.Errorf("spec type %s, want DataError", fe.SpecType())
	}
	err = ls.Put(ctx, op.Area{Storage: a2e.StorageSession, Account: "alice", SessionID: "s"}, "k", 1)
	if err == nil {
		t.Fatal("sessionStorage accepted by the localStorage adapter")
	}
	if err := ls.Put(ctx, area(""), "k", 1); err == nil {
		t.Fatal("no account accepted")
	}
	wantKind(t, ls.Put(ctx, area("alice"), "k", func() {}), fault.Invalid, "a value that is not JSON")
}

func testCheckpointerAdapter(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	_, _, err := s.CreateExecution(ctx, mkExecution("ex-1", "alice"))
	must(t, err)
	var cpr engine.Checkpointer = store.Checkpointer{Store: s}
	_, err = cpr.Load(ctx, "ex-1")
	wantKind(t, err, fault.NotFound, "no checkpoint")
	cp := &engine.Checkpoint{Version: engine.CheckpointVersion, ExecutionID: "ex-1", Account: "alice", Status: engine.StatusRunning,
		Workflow: map[string]any{"users": []any{"a", "b"}}, Results: map[string]any{"op1": 2.0}, Finished: []string{"0"},
		BudgetMs: 30000, ElapsedMs: 12, StartedAt: time.Date(2026, 11, 23, 1, 2, 3, 4000, time.UTC)}
	must(t, cpr.Save(ctx, cp))
	cp.Finished = append(cp.Finished, "1") // the engine reuses its values: Save must have copied
	back, err := cpr.Load(ctx, "ex-1")
	must(t, err)
	if back.ExecutionID != "ex-1" || len(back.Finished) != 1 || back.Results["op1"] != 2.0 ||
		fmt.Sprint(back.Workflow["users"]) != "[a b]" || !back.StartedAt.Equal(cp.StartedAt) || back.Status != engine.StatusRunning {
		t.Fatalf("loaded %+v", back)
	}
	wantKind(t, cpr.Save(ctx, &engine.Checkpoint{ExecutionID: "ex-none"}), fault.NotFound, "checkpoint of a missing execution")
}

// testConcurrentWriters has many goroutines write at once (what group commit
// batches) and checks that every acknowledged write is there and that
// sequences and scoping hold under concurrency.
func testConcurrentWriters(t *testing.T, s store.Store) {
	const workers, each = 16, 25
	for w := range workers {
		mkAccount(t, s, fmt.Sprintf("w%02d", w))
	}
	_, _, err := s.CreateExecution(ctx, mkExecution("shared", "w00"))
	must(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*4)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acct := fmt.Sprintf("w%02d", w)
			for i := range each {
				id := fmt.Sprintf("%s-ex-%02d", acct, i)
				e := mkExecution(id, acct)
				e.ClientID = fmt.Sprintf("client-%d", i) // same client ids in every account
				if _, created, err := s.CreateExecution(ctx, e); err != nil || !created {
					errs <- fmt.Errorf("create %s: %v (created %v)", id, err, created)
					continue
				}
				if err := s.UpdateExecution(ctx, acct, id, store.ExecutionUpdate{Status: store.StatusSuccess, Result: json.RawMessage(`{"i":1}`)}); err != nil {
					errs <- fmt.Errorf("update %s: %v", id, err)
				}
				if _, err := s.AppendEvents(ctx, "shared", json.RawMessage(`{"w":`+fmt.Sprint(w)+`}`)); err != nil {
					errs <- fmt.Errorf("event: %v", err)
				}
				if err := s.AppendAudit(ctx, []store.AuditRecord{{Time: time.Now(), AccountID: acct, Method: "workflow.execute", Decision: store.DecisionAllow}}); err != nil {
					errs <- fmt.Errorf("audit: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range workers {
		acct := fmt.Sprintf("w%02d", w)
		list, _, err := s.ListExecutions(ctx, acct, store.ExecutionQuery{Status: []store.Status{store.StatusSuccess}, Page: store.Page{Limit: store.MaxPageSize}})
		must(t, err)
		if len(list) != each {
			t.Errorf("%s: %d finished executions, want %d", acct, len(list), each)
		}
	}
	evs, err := s.ListEvents(ctx, "shared", 0, store.MaxPageSize)
	must(t, err)
	if len(evs) != workers*each {
		t.Fatalf("%d events, want %d", len(evs), workers*each)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: sequences must have no gaps or repeats", i, ev.Seq)
		}
	}
	recs, _, err := s.QueryAudit(ctx, store.AuditQuery{Page: store.Page{Limit: store.MaxPageSize}})
	must(t, err)
	if len(recs) != workers*each {
		t.Fatalf("%d audit records, want %d", len(recs), workers*each)
	}
}

// testConcurrentIdempotency races many creates with one client id: exactly
// one is created, every other caller gets that execution back.
func testConcurrentIdempotency(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	const n = 32
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
		ids     = map[string]int{}
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := mkExecution(fmt.Sprintf("race-%02d", i), "alice")
			e.ClientID, e.Digest = "the-one", "sha256:same"
			got, c, err := s.CreateExecution(ctx, e)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if c {
				created++
			}
			ids[got.ID]++
		}()
	}
	wg.Wait()
	if created != 1 || len(ids) != 1 {
		t.Fatalf("created %d, ids %v: want one execution for one client id", created, ids)
	}
}

// testMixedFailures has writes that fail (a taken id) race writes that must
// succeed: one caller's failure never undoes or fails another's write, even
// when an implementation commits them together.
func testMixedFailures(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	const n = 64
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		conflicts int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("ok-%02d", i)
			if i%2 == 0 {
				id = "taken"
			}
			_, _, err := s.CreateExecution(ctx, mkExecution(id, "alice"))
			switch {
			case err == nil:
			case i%2 == 0 && fault.KindOf(err) == fault.Conflict:
				mu.Lock()
				conflicts++
				mu.Unlock()
			default:
				t.Errorf("%s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	if conflicts != n/2-1 {
		t.Fatalf("%d conflicts, want %d", conflicts, n/2-1)
	}
	for i := 1; i < n; i += 2 {
		if _, err := s.GetExecution(ctx, "alice", fmt.Sprintf("ok-%02d", i)); err != nil {
			t.Fatalf("a write beside failing ones was lost: %v", err)
		}
	}
}

func testClose(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	must(t, s.Close())
	_, err := s.CreateAccount(ctx, store.Account{ID: "late"})
	wantKind(t, err, fault.Unavailable, "write after close")
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}
