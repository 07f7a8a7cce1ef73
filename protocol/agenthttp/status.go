package agenthttp

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Outcome is what the bridge does with an HTTP status.
type Outcome int

// The outcomes of the spec's status table.
const (
	// Parse: the task ran; read the body (its status says success or error).
	Parse Outcome = iota
	// Retry: a transient failure; retry with backoff (429 honouring
	// Retry-After).
	Retry
	// Fail: a failure retrying cannot fix; publish it at once.
	Fail
)

func (o Outcome) String() string {
	switch o {
	case Parse:
		return "parse"
	case Retry:
		return "retry"
	}
	return "fail"
}

// StatusRule is one row of the spec's table.
type StatusRule struct {
	Code    int
	Meaning string
	Outcome Outcome
}

// StatusTable is the spec's table of HTTP statuses ("HTTP Status Codes").
// Codes outside it follow their class: 2xx parse, 5xx retry, anything else
// fails without retry (408 included: RESOLUTIONS keep the spec's table).
var StatusTable = []StatusRule{
	{200, "task completed (check status field)", Parse},
	{400, "invalid input data", Fail},
	{401, "missing or invalid authentication", Fail},
	{403, "insufficient permissions", Fail},
	{404, "agent endpoint not found", Fail},
	{422, "validation error", Fail},
	{429, "rate limit exceeded", Retry},
	{500, "agent internal error", Retry},
	{502, "upstream service error", Retry},
	{503, "agent temporarily unavailable", Retry},
	{504, "agent timeout", Retry},
}

// Classify says what to do with an answer of HTTP status code.
func Classify(code int) Outcome {
	switch {
	case code >= 200 && code <= 299:
		return Parse
	case code == http.StatusTooManyRequests, code >= 500 && code <= 599:
		return Retry
	}
	return Fail
}

// MaxRetryAfter is the longest Retry-After ParseRetryAfter accepts; a longer
// wait is reported as this bound (callers decide whether to wait that long).
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After header: delta-seconds or an HTTP date
// (RFC 9110 §10.2.3), relative to now. ok is false when v is empty or not
// one of the two forms; a date in the past is 0. The wait is capped at
// MaxRetryAfter.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		if len(v) > 9 { // more than ~31 years of seconds
			for i := 0; i < len(v); i++ {
				if v[i] < '0' || v[i] > '9' {
					return 0, false
				}
			}
			return MaxRetryAfter, true
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, false
		}
		return min(time.Duration(n)*time.Second, MaxRetryAfter), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return min(d, MaxRetryAfter), true
}
