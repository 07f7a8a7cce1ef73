package execution_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/execution"
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
	out, err := n.m.Execute(context.Background(), principal("alice"), execution.Request{Document: doc, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	id := out.View.ExecutionID

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	frames := make(chan execution.Frame, 64)
	followed := make(chan error, 1)
	go func() {
		followed <- n.m.Follow(ctx, principal("alice"), id, 0, func(f execution.Frame) error {
			frames <- f
			return nil
		})
	}()
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
