package a2aserver

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/agentflow"
)

// The run service sends a run's final frame before it stores the run's
// final record (the frame is the answer; the record follows it), so a
// follower that reads the record at the final frame may still find it
// running. settled reads it until it is final, for at most settleWait.
const (
	settleWait = 5 * time.Second
	settleTick = 10 * time.Millisecond
)

// settled is task id's run once its record is final (or as it is after
// settleWait).
func (h *handler) settled(ctx context.Context, id a2a.TaskID) (*agentflow.Run, error) {
	deadline := time.Now().Add(settleWait)
	for {
		r, err := h.run(ctx, id)
		if err != nil || r.Status.Final() || time.Now().After(deadline) {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, nil
		case <-time.After(settleTick):
		}
	}
}
