package op

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
)

// The response side of ApiCall: how a non-2xx answer becomes an error and is
// classified for retry, how long an answer may be cached, and how secrets that
// were sent are kept out of whatever comes back.

// statusFault turns a non-2xx response into an ExecutionError with the status
// and the start of the response, secrets scrubbed, and classifies it for retry.
func (a *apiCall) statusFault(resp *http.Response, req *apiRequest, rc *RunContext) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, apiErrorBodyRead))
	io.Copy(io.Discard, io.LimitReader(resp.Body, apiErrorBodyRead)) // let the connection be reused
	text := quote(req.redactor.ScrubText(strings.ToValidUTF8(string(raw), "\uFFFD")), apiErrorQuote)
	code := resp.StatusCode
	fe := fault.Typed(fault.Upstream, fault.ExecutionError, "API call failed: %s answered HTTP %d", a.target(req), code).
		WithDetail("statusCode", code).WithDetail("response", text)
	after, hasAfter := retryAfter(resp.Header.Get("Retry-After"), a.now(rc))
	switch {
	case code == http.StatusTooManyRequests, code == http.StatusServiceUnavailable && hasAfter:
		fe.Retry(after)
	case code >= 500, code == http.StatusRequestTimeout:
		if a.safe() {
			fe.Retry(after)
		}
	}
	if hasAfter {
		fe.WithDetail("retryAfterMs", after.Milliseconds())
	}
	switch {
	case code == 401 || code == 403:
		fe.WithSuggestions("Verify credentials are valid and allowed for this endpoint")
	case code == 404:
		fe.WithSuggestions("Check the URL and the values placed in it")
	case code == 429:
		fe.WithSuggestions("The API is rate limiting; slow down or retry later")
	case code >= 500:
		fe.WithSuggestions("Check API endpoint availability")
	case code >= 400:
		fe.WithSuggestions("Check the request: method, headers and body")
	}
	return fe
}

func (a *apiCall) now(rc *RunContext) time.Time {
	var c clock.Clock = clock.Real{}
	if rc.Clock != nil {
		c = rc.Clock
	} else if a.d.Clock != nil {
		c = a.d.Clock
	}
	return c.Now()
}

// retryAfter parses Retry-After: delay seconds or an HTTP date, bounded.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		d = time.Duration(min(secs, int64(apiMaxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = max(t.Sub(now), 0)
	} else {
		return 0, false
	}
	return min(d, apiMaxRetryAfter), true
}

// cacheTTL is how long a response may be cached: def, shortened by max-age (less
// Age), zero when the response forbids storing or demands revalidation.
// "private" does not forbid: this cache is per account, not shared.
func cacheTTL(h http.Header, def time.Duration) time.Duration {
	cc := h.Values("Cache-Control")
	if len(cc) == 0 {
		if strings.Contains(strings.ToLower(h.Get("Pragma")), "no-cache") {
			return 0
		}
		return def
	}
	ttl := def
	for _, line := range cc {
		for _, dir := range strings.Split(line, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(dir), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0
			case "max-age":
				secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64)
				if err != nil || secs < 0 {
					return 0 // malformed: do not guess
				}
				if age, err := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64); err == nil && age > 0 {
					secs -= age
				}
				if secs <= 0 {
					return 0
				}
				if d := time.Duration(min(secs, int64(def/time.Second))) * time.Second; d < ttl {
					ttl = d
				}
			}
		}
	}
	return ttl
}

// quote truncates s to at most n bytes on a rune boundary, marking the cut.
func quote(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
