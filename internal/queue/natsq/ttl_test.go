package natsq

import (
	"testing"
	"time"
)

// The server counts a TTL in whole seconds, truncating: ttlFor rounds up so
// an item is never deleted before its expiry, and never goes under the
// server's minimum of one second.
func TestTTLFor(t *testing.T) {
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   time.Duration
		want time.Duration
		hdr  string
	}{
		{-time.Hour, time.Second, "1s"}, // expired already: the minimum
		{0, time.Second, "1s"},
		{300 * time.Millisecond, time.Second, "1s"},
		{time.Second, time.Second, "1s"},
		{1200 * time.Millisecond, 2 * time.Second, "2s"},
		{time.Minute + time.Nanosecond, 61 * time.Second, "61s"},
		{65 * time.Minute, 65 * time.Minute, "3900s"},
	} {
		got := ttlFor(now.Add(c.in), now)
		if got != c.want || ttlHeader(got) != c.hdr {
			t.Errorf("ttlFor(now%+v) = %v (%q), want %v (%q)", c.in, got, ttlHeader(got), c.want, c.hdr)
		}
	}
}
