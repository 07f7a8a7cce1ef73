package execution_test

import (
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/store"
)

// Workers take accounts round-robin: alice's backlog, queued first, does not
// hold up bob's and carol's first executions by more than one of hers. One
// worker, started once everything is queued, so the order is the lease
// order alone. Before executions carried their account as the queue
// group, the worker took them oldest first: alice, alice, alice, bob, carol.
func TestWorkersTakeAccountsRoundRobin(t *testing.T) {
	clk := newGatedClock()
	n := openNode(t, t.TempDir(), clk, 1)
	type sub struct{ acct, id string }
	var subs []sub
	for _, acct := range []string{"alice", "alice", "alice", "bob", "carol"} {
		subs = append(subs, sub{acct, n.submit(t, acct, 0)})
	}
	if err := n.m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, s := range subs {
		n.await(t, s.acct, s.id, store.StatusSuccess)
	}
	n.mu.Lock()
	order := slices.Clone(n.order)
	n.mu.Unlock()
	if want := []string{"alice", "bob", "carol", "alice", "alice"}; !slices.Equal(order, want) {
		t.Fatalf("executions took the worker in the order %v, want %v", order, want)
	}
}
