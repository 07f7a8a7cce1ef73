package queuetest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
)

// Suite describes an implementation to the contract.
type Suite struct {
	// Open opens an empty queue for one test; the suite closes it.
	Open Opener
	// Peer, when set, opens a second queue on the backend of q, as another
	// process would see it; the suite closes it. The cases across queues run
	// only with it.
	Peer func(t *testing.T, q queue.Queue) queue.Queue
	// Unmet declares the parts of the contract the implementation does not
	// meet, each with the reason, logged when its case is skipped. Only parts
	// across queues, and FairGroups, can be declared: every implementation
	// meets the other cases of one queue.
	Unmet map[Part]string
}

// Part names a part of the contract across queues on one backend.
type Part string

// The parts an implementation may declare unmet.
const (
	// PeerDuplicates: an id still queued through one queue is a duplicate
	// when enqueued through another.
	PeerDuplicates Part = "peer-duplicates"
	// PeerAck: an item leased through one queue is acked through another,
	// and its token is spent for both.
	PeerAck Part = "peer-ack"
	// PeerLostLease: a lease that ran out and was taken again (through either
	// queue) is lost for its first holder, who acks through its own queue.
	PeerLostLease Part = "peer-lost-lease"
	// PeerAttempts: an item leased again through the other queue counts
	// the deliveries of both in Attempts. Declared unmet, PeerLostLease
	// still runs and asks for at least one attempt when the second lease
	// came through the other queue.
	PeerAttempts Part = "peer-attempts"
	// FairGroups: Lease takes items round-robin across Message.Group, the
	// group served least recently first (one queue).
	FairGroups Part = "fair-groups"
)

// parts are the parts an implementation may declare unmet; PeerDelivery
// has none: every implementation with a peer meets it.
var parts = []Part{PeerDuplicates, PeerAck, PeerLostLease, PeerAttempts, FairGroups}

func runPeers(t *testing.T, s Suite) {
	if s.Peer == nil {
		return
	}
	cases := []struct {
		name string
		part Part
		fn   func(*testing.T, queue.Queue, queue.Queue)
	}{
		{"PeerDelivery", "", testPeerDelivery},
		{"PeerDuplicates", PeerDuplicates, testPeerDuplicates},
		{"PeerAck", PeerAck, testPeerAck},
		{"PeerLostLease", PeerLostLease, func(t *testing.T, a, b queue.Queue) {
			_, byOwner := s.Unmet[PeerAttempts]
			testPeerLostLease(t, a, b, byOwner)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if why, unmet := s.Unmet[tc.part]; unmet && tc.part != "" {
				t.Skipf("declared unmet: %s", why)
			}
			a := s.Open(t)
			t.Cleanup(func() { a.Close() })
			b := s.Peer(t, a)
			t.Cleanup(func() { b.Close() })
			tc.fn(t, a, b)
		})
	}
}

// leaseEither leases one item through a or b (b first), waiting on both in
// turn, until one comes or the deadline passes; it says which queue gave it.
func leaseEither(t *testing.T, a, b queue.Queue, topic, owner string, d time.Duration) (queue.Item, queue.Queue) {
	t.Helper()
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		for _, q := range []queue.Queue{b, a} {
			if items := lease(t, q, topic, owner, 1, d); len(items) > 0 {
				return items[0], q
			}
		}
		w, wcancel := context.WithTimeout(deadline, 100*time.Millisecond)
		b.Wait(w, topic)
		wcancel()
		if deadline.Err() != nil {
			t.Fatalf("no item on %s through either queue within the deadline", topic)
		}
	}
}

// testPeerDelivery: items enqueued through one queue are delivered through
// the two, each acked exactly once, none left.
func testPeerDelivery(t *testing.T, a, b queue.Queue) {
	const n = 20
	for i := range n {
		enqueue(t, a, "shared", fmt.Sprintf("s%02d", i), "")
	}
	acked := map[string]int{}
	for len(acked) < n {
		it, q := leaseEither(t, a, b, "shared", "w", time.Minute)
		must(t, q.Ack(ctx, it))
		acked[it.ID]++
	}
	var twice []string
	for id, k := range acked {
		if k != 1 {
			twice = append(twice, id)
		}
	}
	sort.Strings(twice)
	if len(twice) > 0 {
		t.Fatalf("delivered and acked more than once: %v", twice)
	}
	for _, q := range []queue.Queue{a, b} {
		if left := lease(t, q, "shared", "after", 10, time.Minute); len(left) != 0 {
			t.Fatalf("items left after all were acked: %s", ids(left))
		}
	}
}

func testPeerDuplicates(t *testing.T, a, b queue.Queue) {
	enqueue(t, a, "tasks", "t1", "first")
	ok, err := b.Enqueue(ctx, queue.Message{Topic: "tasks", ID: "t1", Payload: []byte("second")})
	must(t, err)
	if ok {
		t.Fatal("an id queued through one queue was enqueued again through the other")
	}
	it, q := leaseEither(t, a, b, "tasks", "w", time.Minute)
	if string(it.Payload) != "first" {
		t.Fatalf("leased %+v", it)
	}
	must(t, q.Ack(ctx, it))
	enqueue(t, b, "tasks", "t1", "third")
}

func testPeerAck(t *testing.T, a, b queue.Queue) {
	enqueue(t, a, "tasks", "t1", "")
	it, q := leaseEither(t, a, b, "tasks", "w", time.Minute)
	other := a
	if q == a {
		other = b
	}
	ext, err := other.Extend(ctx, it, time.Hour)
	must(t, err)
	must(t, other.Ack(ctx, ext))
	wantKind(t, q.Ack(ctx, it), fault.Conflict, "ack through the leasing queue after the other acked")
	wantKind(t, other.Ack(ctx, it), fault.Conflict, "second ack through the other queue")
}

// testPeerLostLease: a lease that ran out is lost for its holder once the
// item is leased again. byOwner (PeerAttempts unmet): attempts are counted
// by whichever queue holds the item, so a second lease through the other
// queue (after the backend moved the item to it) may count from 1 again.
func testPeerLostLease(t *testing.T, a, b queue.Queue, byOwner bool) {
	enqueue(t, a, "tasks", "t1", "work")
	first, q1 := leaseEither(t, a, b, "tasks", "dead-worker", 50*time.Millisecond)
	second, q2 := leaseEither(t, a, b, "tasks", "live-worker", time.Minute)
	wantAttempts := second.Attempts == 2
	if byOwner && q2 != q1 {
		wantAttempts = second.Attempts >= 1
	}
	if second.ID != "t1" || !wantAttempts {
		t.Fatalf("redelivered %+v (first through the same queue: %v)", second, q1 == q2)
	}
	wantKind(t, q1.Ack(ctx, first), fault.Conflict, "ack of a lost lease")
	wantKind(t, q1.Nack(ctx, first, 0), fault.Conflict, "nack of a lost lease")
	must(t, q2.Ack(ctx, second))
}
