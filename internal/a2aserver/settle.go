package a2aserver

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The run service sends a run's final frame before it stores the run's
// final record (the frame is the answer; the record follows it), so a
// follower that reads the record at the final frame may still find it
// running. settled reads the task until it is terminal or waits for input,
// for at most settleWait.
const (
	settleWait = 5 * time.Second
	settleTick = 10 * time.Millisecond
)

// taskReader reads one task as its run's record is now.
type taskReader func(ctx context.Context) (*a2a.Task, error)

// settled is the task read once it is terminal or waits for input (or as
// it is after settleWait).
func settled(ctx context.Context, read taskReader) (*a2a.Task, error) {
	deadline := time.Now().Add(settleWait)
	for {
		t, err := read(ctx)
		if err != nil || t.Status.State.Terminal() || t.Status.State == a2a.TaskStateInputRequired || time.Now().After(deadline) {
			return t, err
		}
		select {
		case <-ctx.Done():
			return t, nil
		case <-time.After(settleTick):
		}
	}
}
