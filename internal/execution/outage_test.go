package execution_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// failingRunning fails the first status change to running with Unavailable,
// as a store does whose database went away.
type failingRunning struct {
	store.Store
	failed atomic.Bool
}

func (f *failingRunning) UpdateExecution(ctx context.Context, accountID, id string, u store.ExecutionUpdate) error {
	if u.Status == store.StatusRunning && f.failed.CompareAndSwap(false, true) {
		return fault.New(fault.Unavailable, "the database is away").Retry(time.Second)
	}
	return f.Store.UpdateExecution(ctx, accountID, id, u)
}

// A queued run whose status change to running the store could not make is
// handed back to the queue and runs later; it is not dropped as if it had
// been cancelled.
func TestQueuedRunOutlivesAStoreOutage(t *testing.T) {
	clk := newGatedClock()
	var failing *failingRunning
	n := startNode(t, t.TempDir(), clk, 1, func(c *execution.Config) {
		failing = &failingRunning{Store: c.Store}
		c.Store = failing
	})
	runQueuedToSuccess(t, n, clk)
	if !failing.failed.Load() {
		t.Fatal("the store never failed: the test tested nothing")
	}
}

// flakyAccounts answers the first look-up with Unavailable, as an account
// store whose database went away.
type flakyAccounts struct{ failed atomic.Bool }

func (f *flakyAccounts) Principal(ctx context.Context, id string) (*account.Principal, error) {
	if f.failed.CompareAndSwap(false, true) {
		return nil, fault.New(fault.Unavailable, "the database is away").Retry(time.Second)
	}
	return principal(id), nil
}

// A queued run whose account could not be read for a moment runs once it
// can be; it is not failed as if the account had lost its grants.
func TestQueuedRunOutlivesAnUnreadableAccount(t *testing.T) {
	clk := newGatedClock()
	flaky := &flakyAccounts{}
	n := startNode(t, t.TempDir(), clk, 1, func(c *execution.Config) { c.Accounts = flaky })
	runQueuedToSuccess(t, n, clk)
	if !flaky.failed.Load() {
		t.Fatal("the account look-up never failed: the test tested nothing")
	}
}

// runQueuedToSuccess queues a data workflow of alice's on n and moves clk
// on (a hand-back's delay) until the run has ended, which must be in
// success, within ten seconds.
func runQueuedToSuccess(t *testing.T, n *node, clk *gatedClock) {
	t.Helper()
	ctx := context.Background()
	out, err := n.m.Execute(ctx, principal("alice"), execution.Request{Document: []byte(dataDoc), Async: true,
		Input: map[string]any{"xs": []any{map[string]any{"v": 1}}}})
	if err != nil || out.View == nil {
		t.Fatalf("execute: %+v %v", out, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		e, err := n.db.GetExecution(ctx, "alice", out.View.ExecutionID)
		if err == nil && e.Status.Final() {
			if e.Status != store.StatusSuccess {
				t.Fatalf("the run ended %s: %s", e.Status, e.Errors)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run: status %q, %v", e.Status, err)
		}
		clk.Advance(time.Second)
		time.Sleep(20 * time.Millisecond)
	}
}
