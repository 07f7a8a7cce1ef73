package agent_test

import (
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
)

// Each attempt an agent answers (well or not) counts in its recent
// figures; an agent never called has none.
func TestRecentCountsAttemptsAndFailures(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, ok(`"a"`), status(503, `{}`), ok(`"b"`), status(400, `{}`))
	e.register(t, "mixed", s.srv.URL, fastRetry(0))
	for i := 0; i < 4; i++ {
		_, _ = e.inv.Invoke(ctx, "mixed", "t", nil, "")
	}
	r := e.inv.Recent("mixed")
	if r.Attempts != 4 || r.Failed != 2 || r.ErrorRate != 0.5 || r.Last.IsZero() {
		t.Fatalf("recent: %+v, want 4 attempts, 2 failed", r)
	}
	if r := e.inv.Recent("never-called"); r.Attempts != 0 || r.ErrorRate != 0 {
		t.Fatalf("an agent never called: %+v", r)
	}
}

// A refused call (an open breaker) sends nothing and is no attempt.
func TestRecentLeavesOutRefusedCalls(t *testing.T) {
	e := newEnv(t, func(_ *agent.RegistryOptions, io *agent.InvokerOptions) {
		io.Breaker = agent.BreakerOptions{FailureThreshold: 1, Cooldown: time.Minute}
	})
	s := newScript(t, status(503, `{}`))
	e.register(t, "down", s.srv.URL, fastRetry(0))
	_, _ = e.inv.Invoke(ctx, "down", "t", nil, "")
	_, err := e.inv.Invoke(ctx, "down", "t", nil, "")
	wantKind(t, err, fault.Unavailable, "an open breaker")
	if r := e.inv.Recent("down"); r.Attempts != 1 || r.Failed != 1 || r.ErrorRate != 1 {
		t.Fatalf("recent: %+v, want the one attempt sent", r)
	}
}
