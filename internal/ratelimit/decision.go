package ratelimit

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Decision is the answer to one call: allowed or not, and the figures of the
// tightest window (the one with the fewest calls left), or of the window that
// refused, for the response headers.
type Decision struct {
	Allowed    bool
	Window     Window
	Limit      int           // 0: no window limits this call (no headers)
	Remaining  int           // after this call
	Reset      time.Time     // when Window's count goes back to zero
	RetryAfter time.Duration // when refused: how long until a call can pass
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1
// (0 when allowed).
func (d Decision) RetryAfterSeconds() int {
	if d.Allowed {
		return 0
	}
	return max(int((d.RetryAfter+time.Second-1)/time.Second), 1)
}

// SetHeaders writes X-RateLimit-Limit, -Remaining and -Reset (an epoch second),
// and Retry-After (seconds) when refused.
func (d Decision) SetHeaders(h http.Header) {
	if d.Limit <= 0 {
		return
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
	}
}

// Message says which limit refused, as the spec words it: "Rate limit
// exceeded: 60 requests per minute".
func (d Decision) Message() string {
	info := windows[d.Window]
	if info.per == "" {
		return fmt.Sprintf("Rate limit exceeded: %d %s", d.Limit, info.noun)
	}
	return fmt.Sprintf("Rate limit exceeded: %d %s %s", d.Limit, info.noun, info.per)
}

// RefusalBody is the spec's 429 body.
type RefusalBody struct {
	Error      string `json:"error"`
	Message    string `json:"message"`
	RetryAfter int    `json:"retry_after"`
}

// Body is the 429 body of a refusal.
func (d Decision) Body() RefusalBody {
	return RefusalBody{Error: "Rate limit exceeded", Message: d.Message(), RetryAfter: d.RetryAfterSeconds()}
}

// Err is nil when allowed, else a RateLimited error carrying the message, the
// wait and the window, for surfaces other than REST (session, E2A, engine).
func (d Decision) Err() error {
	if d.Allowed {
		return nil
	}
	return fault.New(fault.RateLimited, "%s", d.Message()).
		WithDetail("limit", d.Limit).
		WithDetail("window", d.Window.String()).
		WithDetail("retry_after", d.RetryAfterSeconds()).
		Retry(d.RetryAfter)
}
