package execution_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/checkpoint"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/workflow"
)

// gatedClock is a clock whose Sleep blocks until Advance has moved it past
// the sleep's end, as real time would, but only when the test says so.
type gatedClock struct {
	mu    sync.Mutex
	now   time.Time
	moved chan struct{} // closed and replaced by each Advance
}

func newGatedClock() *gatedClock {
	return &gatedClock{now: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC), moved: make(chan struct{})}
}

func (c *gatedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *gatedClock) Sleep(ctx context.Context, d time.Duration) error {
	until := c.Now().Add(d)
	for {
		c.mu.Lock()
		now, moved := c.now, c.moved
		c.mu.Unlock()
		if !now.Before(until) {
			return nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *gatedClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	close(c.moved)
	c.moved = make(chan struct{})
}

// accounts are principals by id, each allowed every operation.
type accounts struct{}

func (accounts) Principal(_ context.Context, id string) (*account.Principal, error) {
	return principal(id), nil
}

func principal(id string) *account.Principal {
	return &account.Principal{ID: id, Permissions: policy.Permissions{Operations: []string{"*"}},
		Limits: account.Limits{MaxConcurrentExecutions: 10, MaxOperations: 20, MaxExecutionTimeMs: 30000, MaxLoopIterations: 1000}}
}

// node is one process: a store on dir, its local queue and a Manager.
type node struct {
	db    *sqlite.DB
	queue *local.Queue
	m     *execution.Manager

	mu         sync.Mutex
	busy, most int      // slots held now, and at most
	order      []string // accounts in the order their executions took a worker
}

func startNode(t *testing.T, dir string, clk *gatedClock, workers int, opts ...func(*execution.Config)) *node {
	t.Helper()
	n := openNode(t, dir, clk, workers, opts...)
	if err := n.m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return n
}

// openNode is startNode without starting the workers.
func openNode(t *testing.T, dir string, clk *gatedClock, workers int, opts ...func(*execution.Config)) *node {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"alice", "bob", "carol"} {
		// Created once per store; a restarted node finds them.
		_, _ = db.CreateAccount(ctx, store.Account{ID: id, Name: id})
	}
	n := &node{db: db, queue: local.New(db, clk)}
	runner := workflow.New(workflow.Config{Deps: op.Deps{Clock: clk, Limits: op.DefaultLimits()}})
	cfg := execution.Config{Store: db, Queue: n.queue, Runner: runner, Accounts: accounts{}, Clock: clk,
		Workers: workers, Owner: "test-node", Slots: n.slot}
	for _, opt := range opts {
		opt(&cfg)
	}
	n.m = execution.New(cfg)
	t.Cleanup(n.stop)
	return n
}

// slot counts the workers busy with an execution.
func (n *node) slot(p *account.Principal) (func(), error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.order = append(n.order, p.ID)
	n.busy++
	n.most = max(n.most, n.busy)
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.busy--
	}, nil
}

func (n *node) mostBusy() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.most
}

func (n *node) stop() {
	if n.m == nil {
		return
	}
	n.m.Close(0)
	n.queue.Close()
	n.db.Close()
	n.m = nil
}

var docs int

// waitDoc is a workflow of one Wait of ms milliseconds.
func waitDoc(ms int) []byte {
	docs++
	return fmt.Appendf(nil, `{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":%d}}}
{"type":"beginExecution","executionId":"wait-%d","operationOrder":["pause"]}
`, ms, docs)
}

func (n *node) submit(t *testing.T, accountID string, ms int) string {
	t.Helper()
	out, err := n.m.Execute(context.Background(), principal(accountID), execution.Request{Document: waitDoc(ms), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	return out.View.ExecutionID
}

func (n *node) status(t *testing.T, accountID, id string) store.Status {
	t.Helper()
	v, err := n.m.Get(context.Background(), principal(accountID), id)
	if err != nil {
		t.Fatal(err)
	}
	return v.Status
}

// await polls until id has status want. The deadline only stops a test that
// would otherwise hang; nothing asserts how long it took.
func (n *node) await(t *testing.T, accountID, id string, want store.Status) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := n.status(t, accountID, id)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s of %s is %s, never %s", id, accountID, got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// awaitParked polls until id's checkpoint says it is parked.
func (n *node) awaitParked(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cp, err := (checkpoint.Stored{Store: n.db}).Load(context.Background(), id)
		if err == nil && cp.Parked != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s never parked (checkpoint: %v)", id, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The reproducer, scaled down: two accounts submit more 30 s Waits
// than there are workers; a third account's zero-length execution still
// finishes while every Wait is pending, because a Wait holds no worker.
// Before Waits parked, both workers slept in Waits and the third execution
// never ran until they ended.
func TestWaitsDoNotHoldWorkers(t *testing.T) {
	clk := newGatedClock()
	n := startNode(t, t.TempDir(), clk, 2)
	var waits []string
	for range 3 {
		waits = append(waits, n.submit(t, "alice", 30000), n.submit(t, "bob", 30000))
	}
	quick := n.submit(t, "carol", 0)
	n.await(t, "carol", quick, store.StatusSuccess)
	for i, id := range waits {
		acct := []string{"alice", "bob"}[i%2]
		if st := n.status(t, acct, id); st.Final() {
			t.Fatalf("the Wait %s of %s is %s before its time", id, acct, st)
		}
	}
	if most := n.mostBusy(); most > 2 {
		t.Fatalf("%d workers were busy at once; 2 are configured", most)
	}

	// At the wake-up time every Wait goes on and finishes.
	for _, id := range waits {
		n.awaitParked(t, id)
	}
	clk.Advance(30 * time.Second)
	n.await(t, "carol", n.submit(t, "carol", 0), store.StatusSuccess) // wakes the idle workers
	for i, id := range waits {
		n.await(t, []string{"alice", "bob"}[i%2], id, store.StatusSuccess)
	}
}

// A parked Wait survives the process: a new Manager on the same store
// resumes it at its wake-up time, not before, from the queue item the
// park left (the durable timer).
func TestParkedWaitSurvivesRestart(t *testing.T) {
	clk := newGatedClock()
	dir := t.TempDir()
	first := startNode(t, dir, clk, 1)
	id := first.submit(t, "alice", 30000)
	first.awaitParked(t, id)
	first.stop()

	second := startNode(t, dir, clk, 1)
	second.await(t, "carol", second.submit(t, "carol", 0), store.StatusSuccess)
	if st := second.status(t, "alice", id); st != store.StatusRunning {
		t.Fatalf("after the restart the Wait is %s before its time, want running", st)
	}
	clk.Advance(30 * time.Second)
	second.await(t, "carol", second.submit(t, "carol", 0), store.StatusSuccess)
	second.await(t, "alice", id, store.StatusSuccess)
	v, err := second.m.Get(context.Background(), principal("alice"), id)
	if err != nil {
		t.Fatal(err)
	}
	if v.DurationMs < 30000 {
		t.Fatalf("the Wait's execution ran %d ms, want its 30000 counted", v.DurationMs)
	}
}
