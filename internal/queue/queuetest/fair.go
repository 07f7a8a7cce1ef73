package queuetest

import (
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
)

// testFairGroups: one group's backlog does not hold up another group's
// first item. Alice enqueues four items before bob and carol enqueue one
// each; leases of one item at a time take them round-robin (the group
// served least recently first, oldest first within a group), and a lease of
// several does the same.
func testFairGroups(t *testing.T, q queue.Queue) {
	put := func(topic, id, group string) {
		t.Helper()
		ok, err := q.Enqueue(ctx, queue.Message{Topic: topic, ID: id, Group: group, Payload: []byte(group)})
		must(t, err)
		if !ok {
			t.Fatalf("%s not enqueued", id)
		}
	}
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		put("fair", id, "alice")
	}
	put("fair", "b1", "bob")
	put("fair", "c1", "carol")
	var got []queue.Item
	for range 6 {
		items := leaseWithin(t, q, "fair", "w", time.Minute)
		if len(items) > 1 {
			// leaseWithin asks for up to 10: give back all but the first.
			for _, it := range items[1:] {
				must(t, q.Nack(ctx, it, 0))
			}
			items = items[:1]
		}
		must(t, q.Ack(ctx, items[0]))
		got = append(got, items[0])
	}
	if s := ids(got); s != "a1,b1,c1,a2,a3,a4" {
		t.Fatalf("lease order %s, want a1,b1,c1,a2,a3,a4", s)
	}
	for _, it := range got {
		if it.Group != string(it.Payload) {
			t.Fatalf("item %s came back in group %q, enqueued in %q", it.ID, it.Group, it.Payload)
		}
	}

	// Several at once: one per group first.
	for _, id := range []string{"x1", "x2", "x3"} {
		put("fair-n", id, "alice")
	}
	put("fair-n", "y1", "bob")
	items := lease(t, q, "fair-n", "w", 3, time.Minute)
	if s := ids(items); s != "x1,y1,x2" {
		t.Fatalf("lease of 3 gave %s, want x1,y1,x2", s)
	}
}

// testBacklog: a queue that says whether other groups wait (queue.Backlog)
// counts only visible items of the other groups: not its own group's, not
// one delayed, not one leased.
func testBacklog(t *testing.T, q queue.Queue) {
	b, ok := q.(queue.Backlog)
	if !ok {
		t.Skip("no queue.Backlog: its consumers never give way")
	}
	waiting := func(group string, want bool) {
		t.Helper()
		got, err := b.OthersWaiting(ctx, "backlog", group)
		must(t, err)
		if got != want {
			t.Fatalf("OthersWaiting(%q) = %v, want %v", group, got, want)
		}
	}
	waiting("alice", false) // an empty topic
	for _, id := range []string{"a1", "a2"} {
		_, err := q.Enqueue(ctx, queue.Message{Topic: "backlog", ID: id, Group: "alice"})
		must(t, err)
	}
	_, err := q.Enqueue(ctx, queue.Message{Topic: "other", ID: "o1", Group: "zed"})
	must(t, err)
	waiting("alice", false) // its own items, and another topic's
	waiting("bob", true)
	waiting("zed", true)
	_, err = q.Enqueue(ctx, queue.Message{Topic: "backlog", ID: "b1", Group: "bob", NotBefore: time.Now().Add(time.Hour)})
	must(t, err)
	waiting("alice", false) // bob's is not visible yet
	_, err = q.Enqueue(ctx, queue.Message{Topic: "backlog", ID: "c1", Group: "carol"})
	must(t, err)
	waiting("alice", true)
	waiting("carol", true) // alice's
	if items := lease(t, q, "backlog", "w", 10, time.Minute); len(items) != 3 {
		t.Fatalf("leased %s, want the three visible items", ids(items))
	}
	waiting("alice", false) // every visible item is leased
	waiting("bob", false)
}

// testDepth: a queue that counts a topic's items (queue.Depther) counts
// visible, delayed and leased ones, not another topic's nor acked ones,
// and stops at max.
func testDepth(t *testing.T, q queue.Queue) {
	d, ok := q.(queue.Depther)
	if !ok {
		t.Skip("no queue.Depther: the queue does not say its depth")
	}
	depth := func(max, want int) {
		t.Helper()
		got, err := d.Depth(ctx, "deep", max)
		must(t, err)
		if got != want {
			t.Fatalf("Depth(max %d) = %d, want %d", max, got, want)
		}
	}
	depth(10, 0)
	for _, id := range []string{"a", "b", "c"} {
		_, err := q.Enqueue(ctx, queue.Message{Topic: "deep", ID: id})
		must(t, err)
	}
	_, err := q.Enqueue(ctx, queue.Message{Topic: "deep", ID: "later", NotBefore: time.Now().Add(time.Hour)})
	must(t, err)
	_, err = q.Enqueue(ctx, queue.Message{Topic: "shallow", ID: "x"})
	must(t, err)
	depth(10, 4)
	depth(2, 2)
	items := lease(t, q, "deep", "w", 2, time.Minute)
	if len(items) != 2 {
		t.Fatalf("leased %d", len(items))
	}
	depth(10, 4) // leased items are still the queue's
	must(t, q.Ack(ctx, items[0]))
	depth(10, 3)
}
