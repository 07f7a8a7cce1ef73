package agent_test

import (
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
)

func TestBreakerOpensAndHalfOpens(t *testing.T) {
	e := newEnv(t, func(_ *agent.RegistryOptions, io *agent.InvokerOptions) {
		io.Breaker = agent.BreakerOptions{FailureThreshold: 3, Cooldown: time.Minute}
	})
	s := newScript(t, status(503, `{}`), status(503, `{}`), status(503, `{}`), status(503, `{}`), ok(`"back"`))
	e.register(t, "flaky", s.srv.URL, fastRetry(0))

	for i := 0; i < 3; i++ {
		_, err := e.inv.Invoke(ctx, "flaky", "t", nil, "")
		wantKind(t, err, fault.Upstream, "a 503")
	}
	st := e.inv.Breaker("flaky")
	if st.State != agent.BreakerOpen || st.ConsecutiveFailures != 3 || !st.RetryAt.Equal(st.OpenedAt.Add(time.Minute)) {
		t.Fatalf("after 3 failures: %+v", st)
	}
	// Open: refused at once, nothing sent, with a hint of when to retry.
	_, err := e.inv.Invoke(ctx, "flaky", "t", nil, "")
	fe := wantKind(t, err, fault.Unavailable, "an open breaker")
	if s.calls() != 3 || !fe.Retryable || fe.RetryAfter != time.Minute {
		t.Fatalf("%d calls, %+v", s.calls(), fe)
	}

	// After the cooldown one probe goes; it fails (503): open again.
	e.clock.Advance(time.Minute)
	if st := e.inv.Breaker("flaky"); st.State != agent.BreakerHalfOpen {
		t.Fatalf("after the cooldown: %+v", st)
	}
	_, err = e.inv.Invoke(ctx, "flaky", "t", nil, "")
	wantKind(t, err, fault.Upstream, "a failed probe")
	if st := e.inv.Breaker("flaky"); st.State != agent.BreakerOpen || s.calls() != 4 {
		t.Fatalf("after a failed probe: %+v, %d calls", st, s.calls())
	}
	_, err = e.inv.Invoke(ctx, "flaky", "t", nil, "")
	wantKind(t, err, fault.Unavailable, "open again")

	// The next probe succeeds: closed.
	e.clock.Advance(time.Minute)
	out, err := e.inv.Invoke(ctx, "flaky", "t", nil, "")
	if err != nil || string(out) != `"back"` {
		t.Fatalf("%s %v", out, err)
	}
	if st := e.inv.Breaker("flaky"); st.State != agent.BreakerClosed || st.ConsecutiveFailures != 0 || !st.OpenedAt.IsZero() {
		t.Fatalf("after a good probe: %+v", st)
	}
	if st := e.inv.Breaker("never-called"); st.State != agent.BreakerClosed {
		t.Fatalf("an agent never called: %+v", st)
	}
}

func TestBreakerStopsRetries(t *testing.T) {
	e := newEnv(t, func(_ *agent.RegistryOptions, io *agent.InvokerOptions) {
		io.Breaker = agent.BreakerOptions{FailureThreshold: 2, Cooldown: time.Hour}
	})
	s := newScript(t, status(500, `{}`))
	e.register(t, "a", s.srv.URL, fastRetry(5))
	_, err := e.inv.Invoke(ctx, "a", "t", nil, "")
	fe := wantKind(t, err, fault.Unavailable, "a breaker that opens during retries")
	if s.calls() != 2 {
		t.Fatalf("%d calls: the breaker should stop the retries after 2", s.calls())
	}
	if cause, ok := fault.As(fe.Cause); !ok || cause.Kind != fault.Upstream {
		t.Fatalf("the last answer is not kept as the cause: %v", fe.Cause)
	}
}

func TestBreakerResetsForANewURL(t *testing.T) {
	e := newEnv(t, func(_ *agent.RegistryOptions, io *agent.InvokerOptions) {
		io.Breaker = agent.BreakerOptions{FailureThreshold: 1, Cooldown: time.Hour}
	})
	bad := newScript(t, status(500, `{}`))
	good := newScript(t, ok(`1`))
	e.register(t, "a", bad.srv.URL, fastRetry(0))
	_, _ = e.inv.Invoke(ctx, "a", "t", nil, "")
	if e.inv.Breaker("a").State != agent.BreakerOpen {
		t.Fatal("not open")
	}
	e.register(t, "a", good.srv.URL, fastRetry(0))
	if _, err := e.inv.Invoke(ctx, "a", "t", nil, ""); err != nil {
		t.Fatalf("a re-registered agent is still cut off: %v", err)
	}
}
