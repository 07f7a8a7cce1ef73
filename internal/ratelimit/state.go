package ratelimit

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// noBucket stands for "no token bucket" where tokens are passed.
const noBucket = -1.0

// state is one account's counters. Every field is guarded by mu.
type state struct {
	mu       sync.Mutex
	counts   [numCounters]int64
	starts   [numCounters]int64 // Unix second each count's window began; 0: never used
	buckets  [2]*rate.Limiter   // the minute buckets of the request and API-call classes
	inflight int
	dirty    bool // a persisted count changed since the last flush
	gone     bool // evicted from the limiter's map: look the account up again
}

// roll starts a new window for w when now is past the one counted.
func (s *state) roll(w Window, now time.Time) {
	if start := w.start(now); s.starts[w] != start {
		s.starts[w], s.counts[w] = start, 0
	}
}

// bucket returns the class's minute bucket sized for limit per minute, or nil
// when the minute is unlimited.
func (s *state) bucket(i, limit int, now time.Time) *rate.Limiter {
	if limit <= 0 {
		s.buckets[i] = nil
		return nil
	}
	r := rate.Limit(float64(limit) / 60)
	b := s.buckets[i]
	switch {
	case b == nil:
		b = rate.NewLimiter(r, limit)
		s.buckets[i] = b
	case b.Burst() != limit || b.Limit() != r:
		b.SetLimitAt(now, r)
		b.SetBurstAt(now, limit)
	}
	return b
}

// view is window w's standing at now; tokens are those of the class's minute
// bucket when w is that minute window, else noBucket.
func (s *state) view(w Window, limit int, tokens float64, now time.Time) WindowStatus {
	used := int(s.counts[w])
	if s.starts[w] != w.start(now) {
		used = 0
	}
	v := WindowStatus{Window: w, Limit: limit, Used: used, Remaining: max(limit-used, 0),
		Reset: time.Unix(w.start(now)+int64(w.Period()/time.Second), 0)}
	if tokens != noBucket {
		// The bucket may hold fewer tokens than the window has left.
		v.Remaining = max(min(v.Remaining, int(math.Floor(tokens))), 0)
	}
	return v
}

// take counts one call of class c at now, unless a window or the minute
// bucket refuses it, and returns the decision.
func (s *state) take(c class, l Limits, now time.Time) Decision {
	minute := c.windows[0]
	b := s.bucket(c.bucket, l.Of(minute), now)
	var refused *Decision
	for _, w := range c.windows {
		s.roll(w, now)
		limit := l.Of(w)
		if limit <= 0 || s.counts[w] < int64(limit) {
			continue
		}
		d := Decision{Window: w, Limit: limit, Reset: time.Unix(s.starts[w]+int64(w.Period()/time.Second), 0)}
		d.RetryAfter = d.Reset.Sub(now)
		if refused == nil || d.RetryAfter > refused.RetryAfter {
			refused = &d // the caller must wait for the longest
		}
	}
	if refused != nil {
		return *refused
	}
	tokens := noBucket
	if b != nil {
		if tokens = b.TokensAt(now); tokens < 1 {
			wait := time.Duration(math.Ceil((1 - tokens) / float64(b.Limit()) * float64(time.Second)))
			return Decision{Window: minute, Limit: l.Of(minute),
				Reset: time.Unix(s.starts[minute]+int64(minute.Period()/time.Second), 0), RetryAfter: wait}
		}
		b.AllowN(now, 1)
		tokens-- // what AllowN left, without asking the bucket again
	}
	d := Decision{Allowed: true}
	for _, w := range c.windows {
		s.counts[w]++
		if windows[w].persisted {
			s.dirty = true
		}
		limit := l.Of(w)
		if limit <= 0 {
			continue
		}
		t := noBucket
		if w == minute {
			t = tokens
		}
		if v := s.view(w, limit, t, now); d.Limit == 0 || v.Remaining < d.Remaining {
			d.Window, d.Limit, d.Remaining, d.Reset = w, v.Limit, v.Remaining, v.Reset
		}
	}
	return d
}

// idle reports whether the state holds nothing worth keeping at now: every
// window has rolled over, no execution runs, buckets are full and nothing
// waits to be flushed.
func (s *state) idle(now time.Time) bool {
	if s.inflight > 0 || s.dirty {
		return false
	}
	for w := range numCounters {
		if s.counts[w] > 0 && s.starts[w] == Window(w).start(now) {
			return false
		}
	}
	for _, b := range s.buckets {
		if b != nil && b.TokensAt(now) < float64(b.Burst()) {
			return false
		}
	}
	return true
}
