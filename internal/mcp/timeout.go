package mcp

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// callTimeout is the error of a call that ran out of its time: a timeout
// (never an internal error), naming the tool and the limit it ran into.
func callTimeout(tool string, limit time.Duration) *fault.Error {
	return fault.New(fault.Timeout, "tool %q did not answer within %s", tool, limit).
		WithDetail("tool", tool).WithDetail("timeoutMs", limit.Milliseconds()).
		WithSuggestions("Give the call a longer timeout, or ask less of the tool")
}

// callerLimit is the time ctx gave a call that started at start, rounded
// to what a person reads.
func callerLimit(ctx context.Context, start time.Time) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	limit := deadline.Sub(start)
	if limit >= time.Second {
		return limit.Round(100 * time.Millisecond)
	}
	return limit.Round(time.Millisecond)
}
