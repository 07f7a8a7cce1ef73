package op

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// WaitOp pauses the execution.
var WaitOp = Registration{
	Spec: Spec{
		Name: a2e.OpWait,
		// Longer than the longest allowed wait, so only the execution budget cuts it.
		DefaultTimeout: 601 * time.Second,
		Summary:        "Pause for a number of milliseconds",
		Description: "Waits duration milliseconds (0 to 600000, and no more than the account's limit), counted " +
			"against the execution's time budget. The wake-up time is recorded before the wait starts, so " +
			"after a server restart the execution waits only what remains. An asynchronous execution does not hold " +
			"a worker while it waits: it is checkpointed and resumed at the wake-up time. Output is null.",
		Example: `{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":1000}}}
{"type":"beginExecution","executionId":"wait-example","operationOrder":["pause"]}
`,
	},
	New: newWait,
}

// maxWaitMs is the spec's ceiling on duration.
const maxWaitMs = 600000

type wait struct {
	duration time.Duration
	clock    clock.Clock // from Deps; RunContext.Clock wins when set
}

// waitState is what Wait saves before it sleeps.
type waitState struct {
	WakeAt time.Time `json:"wakeAt"`
}

func newWait(raw json.RawMessage, d *Deps) (Operation, error) {
	var cfg a2e.Wait
	if err := decodeStrict(raw, &cfg, a2e.OpWait); err != nil {
		return nil, err
	}
	const base = "operation.Wait"
	if err := validateCommon(cfg.Common, base); err != nil {
		return nil, err
	}
	if cfg.Duration < 0 || cfg.Duration > maxWaitMs {
		return nil, invalidConfig(base+".duration", "%s.duration must be 0..%d ms, got %d", base, maxWaitMs, cfg.Duration)
	}
	limit := d.Limits.MaxWait
	if limit <= 0 {
		limit = DefaultLimits().MaxWait
	}
	dur := time.Duration(cfg.Duration) * time.Millisecond
	if dur > limit {
		return nil, invalidConfig(base+".duration", "%s.duration is %d ms; this account allows at most %d ms", base, cfg.Duration, limit.Milliseconds()).
			WithDetail("limit", limit.Milliseconds())
	}
	return &wait{duration: dur, clock: d.Clock}, nil
}

func (w *wait) Run(ctx context.Context, rc *RunContext) (any, error) {
	out, err := w.run(ctx, rc)
	return out, withOp(err, rc.OperationID)
}

func (w *wait) run(ctx context.Context, rc *RunContext) (any, error) {
	if w.duration == 0 {
		return nil, nil
	}
	clk := rc.Clock
	if clk == nil {
		clk = w.clock
	}
	if clk == nil {
		clk = clock.Real{}
	}
	now := clk.Now()
	remaining := w.duration
	if st, ok := parseWaitState(rc.State); ok {
		// Resumed after a restart: only the rest. A wake-up time further away
		// than the duration (a clock set back) is capped at the duration.
		remaining = min(st.WakeAt.Sub(now), w.duration)
		if remaining <= 0 {
			return nil, nil
		}
	} else if rc.Save != nil {
		st, _ := json.Marshal(waitState{WakeAt: now.Add(w.duration).UTC()})
		if err := rc.Save(st); err != nil {
			return nil, fault.Typed(fault.Unavailable, fault.ExecutionError, "could not record the wait's wake-up time").
				WithCause(err).Retry(0)
		}
	}
	if rc.ParkAfter > 0 && remaining > rc.ParkAfter {
		// Nothing to do until the wake-up time (saved above, or before a
		// restart): the execution gives its worker back until then.
		return nil, &Park{Until: now.Add(remaining)}
	}
	if err := clk.Sleep(ctx, remaining); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fault.Typed(fault.Timeout, fault.TimeoutError, "wait of %d ms ended early: the execution ran out of time", w.duration.Milliseconds()).
				WithCause(err).WithSuggestions("Shorten the wait or raise the execution's time budget")
		}
		return nil, err
	}
	return nil, nil
}

// parseWaitState reads a saved wake-up time; anything unreadable counts as none.
func parseWaitState(raw json.RawMessage) (waitState, bool) {
	if len(raw) == 0 {
		return waitState{}, false
	}
	var st waitState
	if err := json.Unmarshal(raw, &st); err != nil || st.WakeAt.IsZero() {
		return waitState{}, false
	}
	return st, true
}

// Reads is empty: a Wait reads nothing.
func (w *wait) Reads() []a2e.Path { return nil }
