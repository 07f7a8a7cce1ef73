package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

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
