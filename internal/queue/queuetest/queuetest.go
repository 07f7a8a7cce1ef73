// Package queuetest is the contract every queue.Queue implementation must
// meet. Each subtest opens a fresh, empty queue. Leases that must run out are
// short and waited for with generous deadlines: nothing asserts how fast
// anything is, only what happens.
package queuetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
)

// Opener opens an empty queue for one test; the suite closes it.
type Opener func(t *testing.T) queue.Queue

// Run runs the whole contract on one queue at a time.
func Run(t *testing.T, open Opener) { RunSuite(t, Suite{Open: open}) }

// RunSuite runs the contract: every case of one queue, whatever s declares,
// then the cases across two queues on one backend when s.Peer is set.
func RunSuite(t *testing.T, s Suite) {
	open := s.Open
	for part := range s.Unmet {
		if !slices.Contains(parts, part) {
			t.Fatalf("Suite.Unmet names %q, which is no part of the contract", part)
		}
	}
	tests := []struct {
		name string
		fn   func(*testing.T, queue.Queue)
	}{
		{"EnqueueLeaseAck", testEnqueueLeaseAck},
		{"Duplicates", testDuplicates},
		{"OrderAndTopics", testOrderAndTopics},
		{"ExpiredLeaseIsRedelivered", testExpiredLease},
		{"Nack", testNack},
		{"Extend", testExtend},
		{"Delayed", testDelayed},
		{"Wait", testWait},
		{"ConcurrentConsumers", testConcurrentConsumers},
		{"Bounds", testBounds},
		{"Close", testClose},
		{"FairGroups", testFairGroups},
		{"Backlog", testBacklog},
		{"Depth", testDepth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if why, unmet := s.Unmet[FairGroups]; unmet && tc.name == "FairGroups" {
				t.Skipf("declared unmet: %s", why)
			}
			q := open(t)
			t.Cleanup(func() { q.Close() })
			tc.fn(t, q)
		})
	}
	runPeers(t, s)
}

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantKind(t *testing.T, err error, kind fault.Kind, what string) {
	t.Helper()
	if got := fault.KindOf(err); err == nil || got != kind {
		t.Fatalf("%s: %v (kind %v), want %v", what, err, got, kind)
	}
}

func enqueue(t *testing.T, q queue.Queue, topic, id, payload string) {
	t.Helper()
	ok, err := q.Enqueue(ctx, queue.Message{Topic: topic, ID: id, Payload: []byte(payload)})
	must(t, err)
	if !ok {
		t.Fatalf("%s/%s not enqueued", topic, id)
	}
}

func lease(t *testing.T, q queue.Queue, topic, owner string, n int, d time.Duration) []queue.Item {
	t.Helper()
	items, err := q.Lease(ctx, topic, owner, n, d)
	must(t, err)
	return items
}

// leaseWithin leases until an item comes or the deadline passes, using Wait
// between tries.
func leaseWithin(t *testing.T, q queue.Queue, topic, owner string, d time.Duration) []queue.Item {
	t.Helper()
	deadline, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		if items := lease(t, q, topic, owner, 10, d); len(items) > 0 {
			return items
		}
		if err := q.Wait(deadline, topic); err != nil {
			t.Fatalf("no item on %s within the deadline: %v", topic, err)
		}
	}
}

func ids(items []queue.Item) string {
	var s []string
	for _, it := range items {
		s = append(s, it.ID)
	}
	return strings.Join(s, ",")
}

func testEnqueueLeaseAck(t *testing.T, q queue.Queue) {
	before := time.Now().Add(-time.Second)
	enqueue(t, q, "tasks", "t1", `{"run_id":"r1"}`)
	items := lease(t, q, "tasks", "worker-a", 5, time.Minute)
	if len(items) != 1 {
		t.Fatalf("leased %d", len(items))
	}
	it := items[0]
	if it.ID != "t1" || it.Topic != "tasks" || string(it.Payload) != `{"run_id":"r1"}` || it.Attempts != 1 ||
		it.LeasedBy != "worker-a" || it.Token == "" || it.EnqueuedAt.Before(before) || !it.LeaseUntil.After(time.Now()) {
		t.Fatalf("item %+v", it)
	}
	if again := lease(t, q, "tasks", "worker-b", 5, time.Minute); len(again) != 0 {
		t.Fatalf("a leased item was leased again: %s", ids(again))
	}
	must(t, q.Ack(ctx, it))
	wantKind(t, q.Ack(ctx, it), fault.Conflict, "second ack")
	if again := lease(t, q, "tasks", "worker-b", 5, time.Millisecond); len(again) != 0 {
		t.Fatalf("an acked item came back: %s", ids(again))
	}
	// An empty payload is a payload.
	enqueue(t, q, "tasks", "empty", "")
	items = lease(t, q, "tasks", "w", 1, time.Minute)
	if len(items) != 1 || len(items[0].Payload) != 0 || items[0].Group != "" {
		t.Fatalf("empty payload: %+v", items)
	}
	// An item keeps its group.
	ok, err := q.Enqueue(ctx, queue.Message{Topic: "tasks", ID: "grouped", Group: "acct-1"})
	must(t, err)
	items = lease(t, q, "tasks", "w", 1, time.Minute)
	if !ok || len(items) != 1 || items[0].Group != "acct-1" {
		t.Fatalf("grouped item: %+v", items)
	}
}

func testDuplicates(t *testing.T, q queue.Queue) {
	enqueue(t, q, "tasks", "t1", "first")
	ok, err := q.Enqueue(ctx, queue.Message{Topic: "tasks", ID: "t1", Payload: []byte("second")})
	must(t, err)
	if ok {
		t.Fatal("a duplicate was enqueued")
	}
	items := lease(t, q, "tasks", "w", 10, time.Minute)
	if len(items) != 1 || string(items[0].Payload) != "first" {
		t.Fatalf("after a duplicate: %+v", items)
	}
	// Still a duplicate while leased; a new item once acked.
	if ok, _ := q.Enqueue(ctx, queue.Message{Topic: "tasks", ID: "t1"}); ok {
		t.Fatal("enqueued over a leased item")
	}
	must(t, q.Ack(ctx, items[0]))
	enqueue(t, q, "tasks", "t1", "third")
	items = lease(t, q, "tasks", "w", 10, time.Minute)
	if len(items) != 1 || string(items[0].Payload) != "third" || items[0].Attempts != 1 {
		t.Fatalf("re-enqueued after ack: %+v", items)
	}
}

func testOrderAndTopics(t *testing.T, q queue.Queue) {
	for i := range 6 {
		enqueue(t, q, "a", fmt.Sprintf("a%d", i), "")
	}
	enqueue(t, q, "b", "b0", "")
	first := lease(t, q, "a", "w", 4, time.Minute)
	if ids(first) != "a0,a1,a2,a3" {
		t.Fatalf("first lease: %s", ids(first))
	}
	rest := lease(t, q, "a", "w", 4, time.Minute)
	if ids(rest) != "a4,a5" {
		t.Fatalf("second lease: %s", ids(rest))
	}
	if b := lease(t, q, "b", "w", 10, time.Minute); ids(b) != "b0" {
		t.Fatalf("topic b: %s", ids(b))
	}
	if none := lease(t, q, "c", "w", 10, time.Minute); len(none) != 0 {
		t.Fatalf("empty topic gave %s", ids(none))
	}
}

func testExpiredLease(t *testing.T, q queue.Queue) {
	enqueue(t, q, "tasks", "t1", "work")
	first := lease(t, q, "tasks", "dead-worker", 1, 50*time.Millisecond)
	if len(first) != 1 {
		t.Fatal("not leased")
	}
	second := leaseWithin(t, q, "tasks", "live-worker", time.Minute)
	if len(second) != 1 || second[0].ID != "t1" || second[0].Attempts != 2 || second[0].LeasedBy != "live-worker" ||
		string(second[0].Payload) != "work" || second[0].Token == first[0].Token {
		t.Fatalf("redelivered %+v", second)
	}
	// The first holder lost its lease: it can neither ack, nack nor extend.
	wantKind(t, q.Ack(ctx, first[0]), fault.Conflict, "ack of a lost lease")
	wantKind(t, q.Nack(ctx, first[0], 0), fault.Conflict, "nack of a lost lease")
	_, err := q.Extend(ctx, first[0], time.Minute)
	wantKind(t, err, fault.Conflict, "extend of a lost lease")
	must(t, q.Ack(ctx, second[0]))
}

func testNack(t *testing.T, q queue.Queue) {
	enqueue(t, q, "tasks", "t1", "")
	it := lease(t, q, "tasks", "w", 1, time.Minute)[0]
	must(t, q.Nack(ctx, it, 0))
	again := lease(t, q, "tasks", "w2", 1, time.Minute)
	if len(again) != 1 || again[0].Attempts != 2 {
		t.Fatalf("after nack: %+v", again)
	}
	wantKind(t, q.Ack(ctx, it), fault.Conflict, "ack with the old token after nack")
	must(t, q.Nack(ctx, again[0], time.Hour))
	if none := lease(t, q, "tasks", "w3", 1, time.Minute); len(none) != 0 {
		t.Fatalf("an item nacked for an hour came back: %+v", none)
	}
	wantKind(t, q.Nack(ctx, again[0], -time.Second), fault.Invalid, "negative delay")
}

func testExtend(t *testing.T, q queue.Queue) {
	enqueue(t, q, "tasks", "t1", "")
	it := lease(t, q, "tasks", "w", 1, 100*time.Millisecond)[0]
	ext, err := q.Extend(ctx, it, time.Hour)
	must(t, err)
	if !ext.LeaseUntil.After(it.LeaseUntil) || ext.Token != it.Token {
		t.Fatalf("extended %+v from %+v", ext, it)
	}
	time.Sleep(300 * time.Millisecond) // past the original lease
	if other := lease(t, q, "tasks", "thief", 1, time.Minute); len(other) != 0 {
		t.Fatalf("an extended lease was taken: %+v", other)
	}
	must(t, q.Ack(ctx, ext))
	_, err = q.Extend(ctx, it, 0)
	wantKind(t, err, fault.Invalid, "zero extension")
}

func testDelayed(t *testing.T, q queue.Queue) {
	ok, err := q.Enqueue(ctx, queue.Message{Topic: "later", ID: "t1", NotBefore: time.Now().Add(time.Hour)})
	must(t, err)
	if !ok {
		t.Fatal("not enqueued")
	}
	if none := lease(t, q, "later", "w", 1, time.Minute); len(none) != 0 {
		t.Fatalf("a delayed item was delivered early: %+v", none)
	}
	ok, err = q.Enqueue(ctx, queue.Message{Topic: "later", ID: "t2", NotBefore: time.Now().Add(50 * time.Millisecond)})
	must(t, err)
	got := leaseWithin(t, q, "later", "w", time.Minute)
	if ids(got) != "t2" {
		t.Fatalf("after its delay: %s", ids(got))
	}
}

func testWait(t *testing.T, q queue.Queue) {
	// An item already there: Wait returns at once.
	enqueue(t, q, "ready", "t1", "")
	must(t, q.Wait(ctx, "ready"))

	// An enqueue from elsewhere wakes a waiter.
	woke := make(chan error, 1)
	go func() {
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		for {
			if items := lease(t, q, "wake", "w", 1, time.Minute); len(items) > 0 {
				woke <- nil
				return
			}
			if err := q.Wait(c, "wake"); err != nil {
				woke <- err
				return
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	enqueue(t, q, "wake", "t1", "")
	must(t, <-woke)

	// A cancelled context ends the wait with its error.
	c, cancel := context.WithCancel(ctx)
	cancel()
	if err := q.Wait(c, "nothing-here"); err == nil {
		t.Fatal("Wait ignored a cancelled context")
	}
}

// testConcurrentConsumers: several consumers race for many items; some die
// holding leases (they never ack). Every item is acked exactly once in the
// end and nothing is lost.
func testConcurrentConsumers(t *testing.T, q queue.Queue) {
	const n, consumers = 200, 4
	for i := range n {
		enqueue(t, q, "work", fmt.Sprintf("t%03d", i), fmt.Sprint(i))
	}
	var (
		mu    sync.Mutex
		acked = map[string]int{}
		wg    sync.WaitGroup
	)
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// A consumer that takes five items and dies with them.
	lease(t, q, "work", "doomed", 5, 100*time.Millisecond)
	for w := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("c%d", w)
			for c.Err() == nil {
				mu.Lock()
				done := len(acked) == n
				mu.Unlock()
				if done {
					return
				}
				items, err := q.Lease(c, "work", owner, 7, 30*time.Second)
				if err != nil {
					if c.Err() == nil {
						t.Error(err)
					}
					return
				}
				if len(items) == 0 {
					wc, wcancel := context.WithTimeout(c, 200*time.Millisecond)
					q.Wait(wc, "work")
					wcancel()
					continue
				}
				for _, it := range items {
					if err := q.Ack(c, it); err != nil {
						t.Errorf("%s acks %s: %v", owner, it.ID, err)
						continue
					}
					mu.Lock()
					acked[it.ID]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(acked) != n {
		t.Fatalf("%d of %d items acked", len(acked), n)
	}
	var twice []string
	for id, k := range acked {
		if k != 1 {
			twice = append(twice, id)
		}
	}
	sort.Strings(twice)
	if len(twice) > 0 {
		t.Fatalf("acked more than once: %v", twice)
	}
	if left := lease(t, q, "work", "after", 10, time.Minute); len(left) != 0 {
		t.Fatalf("items left after all were acked: %s", ids(left))
	}
}

func testBounds(t *testing.T, q queue.Queue) {
	bad := []queue.Message{
		{Topic: "", ID: "x"}, {Topic: "t", ID: ""}, {Topic: strings.Repeat("t", queue.MaxTopicBytes+1), ID: "x"},
		{Topic: "t", ID: "a\nb"}, {Topic: "t", ID: "x", Payload: make([]byte, queue.MaxPayloadBytes+1)},
		{Topic: "t", ID: "x", NotBefore: time.Now().Add(time.Hour), ExpiresAt: time.Now().Add(time.Minute)},
	}
	for i, m := range bad {
		_, err := q.Enqueue(ctx, m)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("message %d", i))
	}
	for i, c := range []struct {
		topic, owner string
		n            int
		d            time.Duration
	}{
		{"", "w", 1, time.Minute}, {"t", "", 1, time.Minute}, {"t", "w", 0, time.Minute},
		{"t", "w", queue.MaxLeaseItems + 1, time.Minute}, {"t", "w", 1, 0}, {"t", "w", 1, queue.MaxLease + time.Second},
	} {
		_, err := q.Lease(ctx, c.topic, c.owner, c.n, c.d)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("lease %d", i))
	}
	wantKind(t, q.Ack(ctx, queue.Item{Topic: "t", ID: "x"}), fault.Invalid, "ack without token")
	wantKind(t, q.Ack(ctx, queue.Item{Topic: "t", ID: "x", Token: "forged"}), fault.Conflict, "ack of an unknown item")
}

func testClose(t *testing.T, q queue.Queue) {
	done := make(chan error, 1)
	go func() { done <- q.Wait(ctx, "idle") }()
	time.Sleep(20 * time.Millisecond)
	must(t, q.Close())
	select {
	case err := <-done:
		wantKind(t, err, fault.Unavailable, "wait across close")
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not end a Wait")
	}
	_, err := q.Enqueue(ctx, queue.Message{Topic: "t", ID: "x"})
	wantKind(t, err, fault.Unavailable, "enqueue after close")
}
