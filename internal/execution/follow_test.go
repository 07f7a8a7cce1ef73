package execution_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
)

// A stream that began while its execution ran in this process follows it
// to the end after it parks here and finishes in another process sharing
// the store. Before, the stream looked in the store only if the execution
// ran elsewhere when the stream began, and so waited for ever.
func TestFollowAfterTheExecutionMovesAway(t *testing.T) {
	clk := newGatedClock()
	n := startNode(t, t.TempDir(), clk, 1, func(c *execution.Config) { c.SharedPoll = 10 * time.Millisecond })
	doc := []byte(`{"type":"operationUpdate","operationId":"short","operation":{"Wait":{"duration":500}}}
{"type":"operationUpdate","operationId":"long","operation":{"Wait":{"duration":30000}}}
{"type":"beginExecution","executionId":"moves-away","operationOrder":["short","long"]}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id, frames, followed := startAndFollow(ctx, t, n, doc)
	// The first frame arrives while the short Wait sleeps on the gated
	// clock, so the stream begins while the execution runs here.
	select {
	case <-frames:
	case <-ctx.Done():
		t.Fatal("no frame of the running execution")
	}
	time.Sleep(100 * time.Millisecond) // lets the stream go from replay to live; ordering only
	clk.Advance(500 * time.Millisecond)
	n.awaitParked(t, id)

	// Another gateway resumes and finishes it: its final frame reaches the
	// shared store, and nothing is published in this process.
	final, _ := json.Marshal(map[string]any{"is_final": true, "body": map[string]any{"result": map[string]any{"status": "success"}}})
	if _, err := n.db.AppendEvents(context.Background(), id, final); err != nil {
		t.Fatal(err)
	}
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	close(frames)
	var last execution.Frame
	for f := range frames {
		last = f
	}
	if !last.Final {
		t.Fatalf("the stream ended without the final frame (context: %v)", ctx.Err())
	}
}

// nackHook is a queue that calls onNack before each Nack.
type nackHook struct {
	queue.Queue
	onNack func()
}

func (q nackHook) Nack(ctx context.Context, it queue.Item, delay time.Duration) error {
	q.onNack()
	return q.Queue.Nack(ctx, it, delay)
}

// A cancel that lands while a run parks (after the engine parked it, before
// the worker lets go of it) still ends the stream with one final frame,
// cancelled. Before, Cancel left the frame to the run, which had already
// returned as parked: no final frame was ever written and the stream never
// ended.
func TestCancelWhileParkingEndsTheStream(t *testing.T) {
	clk := newGatedClock()
	parking, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	n := startNode(t, t.TempDir(), clk, 1, func(c *execution.Config) {
		c.Queue = nackHook{Queue: c.Queue, onNack: func() {
			once.Do(func() {
				close(parking)
				<-proceed
			})
		}}
	})
	id := n.submit(t, "alice", 30000)
	select {
	case <-parking:
	case <-time.After(20 * time.Second):
		t.Fatal("the Wait never parked")
	}
	if _, err := n.m.Cancel(context.Background(), principal("alice"), id); err != nil {
		t.Fatal(err)
	}
	close(proceed)

	// The final frame reaches the store (polled: the worker writes it after
	// the Nack returns); a stream from the start then ends with it.
	deadline := time.Now().Add(20 * time.Second)
	for !hasFinalFrame(t, n, id) {
		if time.Now().After(deadline) {
			t.Fatal("no final frame was stored for the cancelled execution")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var finals []execution.Frame
	if err := n.m.Follow(ctx, principal("alice"), id, 0, func(f execution.Frame) error {
		if f.Final {
			finals = append(finals, f)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(finals) != 1 {
		t.Fatalf("%d final frames (context: %v), want 1", len(finals), ctx.Err())
	}
	var frame struct {
		Body struct {
			Result struct {
				Status string `json:"status"`
			} `json:"result"`
		} `json:"body"`
	}
	if err := json.Unmarshal(finals[0].Data, &frame); err != nil || frame.Body.Result.Status != "cancelled" {
		t.Fatalf("final frame %s (%v), want status cancelled", finals[0].Data, err)
	}
}

func hasFinalFrame(t *testing.T, n *node, id string) bool {
	t.Helper()
	evs, err := n.db.ListEvents(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		var f struct {
			IsFinal bool `json:"is_final"`
		}
		if json.Unmarshal(ev.Data, &f) == nil && f.IsFinal {
			return true
		}
	}
	return false
}

// A stream that finds the record final before its final frame is written
// (Cancel stores the record first, then the frame) waits for the frame
// instead of ending without it. Before, it ended at once with no final
// frame.
func TestFollowWaitsForTheFinalFrameOfAFinalRecord(t *testing.T) {
	clk := newGatedClock()
	n := startNode(t, t.TempDir(), clk, 1)
	id := n.submit(t, "alice", 30000)
	n.awaitParked(t, id)
	// Cancel's first write, alone: the record is final, no final frame yet.
	if err := n.db.UpdateExecution(context.Background(), "alice", id, store.ExecutionUpdate{Status: store.StatusCancelled}); err != nil {
		t.Fatal(err)
	}
	followed := make(chan []execution.Frame, 1)
	go func() {
		var got []execution.Frame
		_ = n.m.Follow(context.Background(), principal("alice"), id, 0, func(f execution.Frame) error {
			got = append(got, f)
			return nil
		})
		followed <- got
	}()
	time.Sleep(200 * time.Millisecond) // the stream has read the final record; ordering only
	final, _ := json.Marshal(map[string]any{"is_final": true, "body": map[string]any{"result": map[string]any{"status": "cancelled"}}})
	if _, err := n.db.AppendEvents(context.Background(), id, final); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-followed:
		if len(got) == 0 || !got[len(got)-1].Final {
			t.Fatalf("the stream ended without the final frame (%d frames)", len(got))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream never ended")
	}
}

// A live follower of a run in this process that misses a frame (stored,
// and not published to it: here by a write straight to the store) reads
// the store again after a quiet while and ends with the final frame. Before,
// it waited on its subscription until its caller gave up.
func TestFollowRechecksTheStoreWhenNothingArrives(t *testing.T) {
	clk := newGatedClock()
	n := startNode(t, t.TempDir(), clk, 1)
	doc := []byte(`{"type":"operationUpdate","operationId":"short","operation":{"Wait":{"duration":500}}}
{"type":"beginExecution","executionId":"quiet","operationOrder":["short"]}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, frames, followed := startAndFollow(ctx, t, n, doc)
	select {
	case <-frames: // the run is here, sleeping on the gated clock
	case <-ctx.Done():
		t.Fatal("no frame of the running execution")
	}
	// The run's own frames (its step's start) come first: a frame of the
	// run stored after the one below would be handed to the follower, which
	// would then rightly read the store only after it.
	for quiet := false; !quiet; {
		select {
		case <-frames:
		case <-time.After(300 * time.Millisecond): // ordering only
			quiet = true
		}
	}
	final, _ := json.Marshal(map[string]any{"is_final": true, "body": map[string]any{"result": map[string]any{"status": "success"}}})
	if _, err := n.db.AppendEvents(context.Background(), id, final); err != nil {
		t.Fatal(err)
	}
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the follower waited until its caller gave up")
	}
	close(frames)
	var last execution.Frame
	for f := range frames {
		last = f
	}
	if !last.Final {
		t.Fatal("the stream ended without the final frame")
	}
	clk.Advance(time.Second) // lets the run end before the node stops
}

// startAndFollow starts doc as alice's asynchronous execution on n and
// follows it until ctx ends: its id, the frames as they come, and Follow's
// error when it returns.
func startAndFollow(ctx context.Context, t *testing.T, n *node, doc []byte) (string, chan execution.Frame, chan error) {
	t.Helper()
	out, err := n.m.Execute(context.Background(), principal("alice"), execution.Request{Document: doc, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	id := out.View.ExecutionID
	frames := make(chan execution.Frame, 64)
	followed := make(chan error, 1)
	go func() {
		followed <- n.m.Follow(ctx, principal("alice"), id, 0, func(f execution.Frame) error {
			frames <- f
			return nil
		})
	}()
	return id, frames, followed
}
