package agent

import (
	"sync"
	"time"
)

// BreakerOptions tune the circuit breaker each agent has.
type BreakerOptions struct {
	// FailureThreshold is how many attempts in a row must fail (network
	// errors, timeouts, 5xx answers, answers that are not the contract's)
	// to open the breaker. Default 5.
	FailureThreshold int
	// Cooldown is how long an open breaker refuses calls before it lets one
	// probe through (half-open). Default 30 s.
	Cooldown time.Duration
}

func (o BreakerOptions) withDefaults() BreakerOptions {
	if o.FailureThreshold <= 0 {
		o.FailureThreshold = 5
	}
	if o.Cooldown <= 0 {
		o.Cooldown = 30 * time.Second
	}
	return o
}

// BreakerState is a breaker's state.
type BreakerState string

// The states: closed lets every call through; open refuses them until the
// cooldown has passed; half-open lets one probe through, whose outcome
// closes or opens the breaker again.
const (
	BreakerClosed   BreakerState = "closed"
	BreakerOpen     BreakerState = "open"
	BreakerHalfOpen BreakerState = "half-open"
)

// BreakerStatus is what a breaker shows.
type BreakerStatus struct {
	State               BreakerState `json:"state"`
	ConsecutiveFailures int          `json:"consecutive_failures"`
	// OpenedAt is when it last opened, RetryAt when an open breaker lets a
	// probe through; both zero while closed.
	OpenedAt time.Time `json:"opened_at,omitzero"`
	RetryAt  time.Time `json:"retry_at,omitzero"`
}

// breaker is one agent's circuit breaker. It counts attempts, not
// invocations, so an agent that keeps failing is left alone after a few
// retries of one task rather than after several tasks' worth of them.
type breaker struct {
	o BreakerOptions

	mu       sync.Mutex
	url      string // the URL it was made for: a re-registered agent starts closed
	state    BreakerState
	failures int
	openedAt time.Time
	probing  bool // a half-open probe is under way
}

func newBreaker(o BreakerOptions, url string) *breaker {
	return &breaker{o: o, url: url, state: BreakerClosed}
}

// allow reports whether an attempt may go now; when not, the time it may.
// A half-open breaker lets one attempt through at a time.
func (b *breaker) allow(now time.Time) (bool, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerOpen:
		retryAt := b.openedAt.Add(b.o.Cooldown)
		if now.Before(retryAt) {
			return false, retryAt
		}
		b.state, b.probing = BreakerHalfOpen, true
		return true, time.Time{}
	case BreakerHalfOpen:
		if b.probing {
			return false, now.Add(time.Second)
		}
		b.probing = true
		return true, time.Time{}
	}
	return true, time.Time{}
}

// record counts an attempt's outcome: failed means the agent is not
// answering as it should.
func (b *breaker) record(now time.Time, failed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if !failed {
		b.state, b.failures, b.openedAt = BreakerClosed, 0, time.Time{}
		return
	}
	b.failures++
	if b.state == BreakerHalfOpen || b.failures >= b.o.FailureThreshold {
		b.state, b.openedAt = BreakerOpen, now
	}
}

// release ends an attempt that says nothing about the agent (the caller
// went away, or the request was refused before it was sent).
func (b *breaker) release() {
	b.mu.Lock()
	b.probing = false
	b.mu.Unlock()
}

func (b *breaker) status(now time.Time) BreakerStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := BreakerStatus{State: b.state, ConsecutiveFailures: b.failures}
	if b.state != BreakerClosed {
		s.OpenedAt, s.RetryAt = b.openedAt, b.openedAt.Add(b.o.Cooldown)
		if b.state == BreakerOpen && !now.Before(s.RetryAt) {
			s.State = BreakerHalfOpen // the next call is the probe
		}
	}
	return s
}
