// Package ratelimit enforces per-account limits: requests per minute, hour and
// day, "API calls" (HTTP attempts of ApiCall operations) per minute and hour,
// and concurrent executions. Limits key on the authenticated account, never on
// the client address.
//
// Windows are fixed and aligned to UTC (a minute starts at :00 seconds, an hour
// at :00, a day at 00:00 UTC), so X-RateLimit-Reset is the exact epoch second
// the count goes back to zero and two servers agree on it. A fixed window alone
// lets a caller spend a whole minute's allowance at 12:00:59 and another at
// 12:01:00; so each per-minute limit is also a token bucket
// (golang.org/x/time/rate) of the same size refilled at the same average
// rate. A burst of the full allowance is still allowed once, but after it the
// caller gets one request per 60/limit seconds rather than a second full burst
// at the window edge. Refused calls do not count.
package ratelimit

import "time"

// Window names one limit.
type Window int

// The windows. ConcurrentExecutions is a gauge, not a counter.
const (
	RequestsPerMinute Window = iota
	RequestsPerHour
	RequestsPerDay
	APICallsPerMinute
	APICallsPerHour
	ConcurrentExecutions

	numCounters = int(ConcurrentExecutions) // windows that count in time
)

type windowInfo struct {
	name      string        // stable: stored by Persisters, used in status bodies
	usage     string        // the status body's usage key (the spec's requests_last_minute)
	period    time.Duration // 0 for the gauge
	noun, per string        // "requests", "minute": for messages
	persisted bool          // hour and day counters survive restarts
}

var windows = [...]windowInfo{
	RequestsPerMinute:    {"requests_per_minute", "requests_last_minute", time.Minute, "requests", "per minute", false},
	RequestsPerHour:      {"requests_per_hour", "requests_last_hour", time.Hour, "requests", "per hour", true},
	RequestsPerDay:       {"requests_per_day", "requests_last_day", 24 * time.Hour, "requests", "per day", true},
	APICallsPerMinute:    {"api_calls_per_minute", "api_calls_last_minute", time.Minute, "API calls", "per minute", false},
	APICallsPerHour:      {"api_calls_per_hour", "api_calls_last_hour", time.Hour, "API calls", "per hour", true},
	ConcurrentExecutions: {"concurrent_executions", "concurrent_executions", 0, "concurrent executions", "", false},
}

// String is the window's stable name, e.g. "requests_per_minute".
func (w Window) String() string {
	if w < 0 || int(w) >= len(windows) {
		return "unknown"
	}
	return windows[w].name
}

// ParseWindow is the inverse of String.
func ParseWindow(name string) (Window, bool) {
	for w, info := range windows {
		if info.name == name {
			return Window(w), true
		}
	}
	return 0, false
}

// Period is the window's length (0 for ConcurrentExecutions).
func (w Window) Period() time.Duration { return windows[w].period }

// start is the beginning of the window containing now, in Unix seconds. The
// Unix epoch is a UTC midnight, so days align to UTC.
func (w Window) start(now time.Time) int64 {
	p := int64(windows[w].period / time.Second)
	s := now.Unix()
	return s - s%p
}

// Limits are one account's limits. In an account's overrides a zero field
// means "the server's default"; a negative one means "no limit".
type Limits struct {
	RequestsPerMinute       int `json:"requests_per_minute,omitempty"`
	RequestsPerHour         int `json:"requests_per_hour,omitempty"`
	RequestsPerDay          int `json:"requests_per_day,omitempty"`
	APICallsPerMinute       int `json:"api_calls_per_minute,omitempty"`
	APICallsPerHour         int `json:"api_calls_per_hour,omitempty"`
	MaxConcurrentExecutions int `json:"max_concurrent_executions,omitempty"`
}

// DefaultLimits are the spec's defaults (a2e-workflows.md, "Rate Limiting"),
// and 10 concurrent executions, which the spec leaves open.
func DefaultLimits() Limits {
	return Limits{
		RequestsPerMinute: 60, RequestsPerHour: 1000, RequestsPerDay: 10000,
		APICallsPerMinute: 30, APICallsPerHour: 500,
		MaxConcurrentExecutions: 10,
	}
}

// Of is the limit of one window.
func (l Limits) Of(w Window) int {
	switch w {
	case RequestsPerMinute:
		return l.RequestsPerMinute
	case RequestsPerHour:
		return l.RequestsPerHour
	case RequestsPerDay:
		return l.RequestsPerDay
	case APICallsPerMinute:
		return l.APICallsPerMinute
	case APICallsPerHour:
		return l.APICallsPerHour
	case ConcurrentExecutions:
		return l.MaxConcurrentExecutions
	}
	return 0
}

// Or fills l's zero fields from d.
func (l Limits) Or(d Limits) Limits {
	pick := func(v, dv int) int {
		if v == 0 {
			return dv
		}
		return v
	}
	return Limits{
		RequestsPerMinute:       pick(l.RequestsPerMinute, d.RequestsPerMinute),
		RequestsPerHour:         pick(l.RequestsPerHour, d.RequestsPerHour),
		RequestsPerDay:          pick(l.RequestsPerDay, d.RequestsPerDay),
		APICallsPerMinute:       pick(l.APICallsPerMinute, d.APICallsPerMinute),
		APICallsPerHour:         pick(l.APICallsPerHour, d.APICallsPerHour),
		MaxConcurrentExecutions: pick(l.MaxConcurrentExecutions, d.MaxConcurrentExecutions),
	}
}

// class is a group of windows one call counts against, with the minute
// window whose token bucket smooths it.
type class struct {
	windows []Window
	bucket  int // index into state.buckets
}

var (
	requestClass = class{[]Window{RequestsPerMinute, RequestsPerHour, RequestsPerDay}, 0}
	apiCallClass = class{[]Window{APICallsPerMinute, APICallsPerHour}, 1}
)

// bucketOf is the index of the token bucket that smooths w, if w has one.
func bucketOf(w Window) (int, bool) {
	for _, c := range []class{requestClass, apiCallClass} {
		if c.windows[0] == w {
			return c.bucket, true
		}
	}
	return 0, false
}
