package engine_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

func TestRetries(t *testing.T) {
	s := time.Second
	cases := []struct {
		name         string
		cfg          string
		budget       time.Duration
		wantStatus   engine.Status
		wantAttempts int
		// wantSleeps are the ceilings of the delays; with maxSource each delay
		// sits just under its ceiling.
		wantSleeps []time.Duration
	}{
		{"succeeds on the 4th attempt", `{"failures":3,"retryable":true}`, 0,
			engine.StatusSuccess, 4, []time.Duration{s, 2 * s, 4 * s}},
		{"gives up after 3 retries", `{"failures":-1,"retryable":true}`, 0,
			engine.StatusFailed, 4, []time.Duration{s, 2 * s, 4 * s}},
		{"non-retryable runs once", `{"failures":-1}`, 0,
			engine.StatusFailed, 1, nil},
		{"per-op override with cap", `{"failures":-1,"retryable":true,"retry":{"maxRetries":6,"initialDelayMs":1000,"maxDelayMs":5000}}`, time.Hour,
			engine.StatusFailed, 7, []time.Duration{s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s}},
		{"maxRetries 0", `{"failures":-1,"retryable":true,"retry":{"maxRetries":0}}`, 0,
			engine.StatusFailed, 1, nil},
		{"Retry-After honoured", `{"failures":1,"retryable":true,"retryAfterMs":7000}`, 0,
			engine.StatusSuccess, 2, []time.Duration{7 * s}},
		{"Retry-After past the deadline stops", `{"failures":-1,"retryable":true,"retryAfterMs":20000}`, 10 * s,
			engine.StatusFailed, 1, nil},
		{"backoff past the deadline stops", `{"failures":-1,"retryable":true}`, 5 * s,
			engine.StatusFailed, 3, []time.Duration{s, 2 * s}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			clk := fakeClock()
			plan := compile(t, f.env(), def("call", "Flaky", c.cfg), begin("", "call"))
			e := engine.New(engine.Options{Clock: clk, Rand: maxSource{}})
			r := e.Run(context.Background(), plan, engine.RunOptions{MaxExecutionTime: c.budget})
			if r.Status != c.wantStatus {
				t.Fatalf("status = %s, want %s (%s)", r.Status, c.wantStatus, errorsText(r))
			}
			if got := f.count("call"); got != c.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, c.wantAttempts)
			}
			sleeps := clk.Sleeps()
			if len(sleeps) != len(c.wantSleeps) {
				t.Fatalf("sleeps = %v, want about %v", sleeps, c.wantSleeps)
			}
			for i, ceil := range c.wantSleeps {
				if sleeps[i] > ceil || sleeps[i] < ceil-time.Millisecond {
					t.Errorf("sleep %d = %v, want just under %v", i, sleeps[i], ceil)
				}
			}
			if c.wantStatus == engine.StatusFailed {
				e := r.Errors[0]
				if e.Type != fault.ExecutionError || e.OperationID != "call" || !strings.Contains(e.Message, "upstream failed") {
					t.Errorf("error = %+v, want the operation's last error", e)
				}
			}
		})
	}
}

// TestRetryJitter checks full jitter with a real random source: every delay
// lies in [0, ceiling], and they are not all at the ceiling.
func TestRetryJitter(t *testing.T) {
	f := newFakes(t)
	clk := fakeClock()
	plan := compile(t, f.env(),
		def("call", "Flaky", `{"failures":-1,"retryable":true,"retry":{"maxRetries":10,"initialDelayMs":100,"maxDelayMs":3000}}`),
		begin("", "call"))
	e := engine.New(engine.Options{Clock: clk, Rand: rand.NewPCG(1, 2)})
	r := e.Run(context.Background(), plan, engine.RunOptions{MaxExecutionTime: time.Hour})
	if r.Status != engine.StatusFailed {
		t.Fatalf("status %s", r.Status)
	}
	sleeps := clk.Sleeps()
	if len(sleeps) != 10 {
		t.Fatalf("sleeps = %v, want 10", sleeps)
	}
	atCeiling := 0
	for i, d := range sleeps {
		ceil := min(100*time.Millisecond<<i, 3*time.Second)
		if d < 0 || d > ceil {
			t.Errorf("sleep %d = %v, outside [0, %v]", i, d, ceil)
		}
		if d > ceil*99/100 {
			atCeiling++
		}
	}
	if atCeiling == len(sleeps) {
		t.Errorf("sleeps %v show no jitter", sleeps)
	}
}

func TestTimeouts(t *testing.T) {
	cases := []struct {
		name     string
		cfg      string
		budget   time.Duration
		attempts int
		want     string
	}{
		// A step's own timeout is retryable: the op has no side effects.
		{"op timeout retried", `{"timeout":20,"retry":{"maxRetries":1,"initialDelayMs":0}}`, 0, 2, `operation "slow" timed out after 20 ms`},
		{"op timeout, op ignores its context", `{"timeout":20,"ignoreCtx":true,"retry":{"maxRetries":0}}`, 0, 1, `timed out after 20 ms`},
		{"execution deadline", `{}`, 30 * time.Millisecond, 1, `exceeded its time limit of 30 ms during operation "slow"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			plan := compile(t, f.env(), def("slow", "Block", c.cfg), def("after", "Const", `{}`), begin("continue", "slow", "after"))
			e := engine.New(engine.Options{Clock: clock.Real{}, Limits: engine.Limits{AbandonGrace: 10 * time.Millisecond}})
			r := e.Run(context.Background(), plan, engine.RunOptions{MaxExecutionTime: c.budget})
			if r.Status != engine.StatusFailed && r.Status != engine.StatusPartial {
				t.Fatalf("status = %s", r.Status)
			}
			if len(r.Errors) != 1 {
				t.Fatalf("errors = %s", errorsText(r))
			}
			e0 := r.Errors[0]
			if e0.Type != fault.TimeoutError || e0.OperationID != "slow" || !strings.Contains(e0.Message, c.want) {
				t.Errorf("error = %+v, want a TimeoutError containing %q", e0, c.want)
			}
			if got := f.count("slow"); got != c.attempts {
				t.Errorf("attempts = %d, want %d", got, c.attempts)
			}
			// A step timeout lets onError continue go on; the execution's
			// deadline stops everything.
			if ranAfter := f.count("after") == 1; ranAfter != (c.budget == 0) {
				t.Errorf("step after the timeout ran = %v", ranAfter)
			}
		})
	}
}
