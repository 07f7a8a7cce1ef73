package agent

import (
	"testing"
	"time"
)

// The window keeps the latest recentWindow attempts, and its quantiles are
// nearest-rank over them.
func TestRecentWindowIsBoundedAndRanks(t *testing.T) {
	var r recent
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// 50 old failures of 1 s, pushed out by 100 successes of 1..100 ms.
	for i := 0; i < 50; i++ {
		r.add(attemptSample{at: at, took: time.Second, failed: true})
	}
	for i := 1; i <= recentWindow; i++ {
		r.add(attemptSample{at: at.Add(time.Duration(i) * time.Second), took: time.Duration(i) * time.Millisecond})
	}
	got := r.read()
	want := Recent{Attempts: 100, Failed: 0, ErrorRate: 0, P50Ms: 50, P99Ms: 99, Last: at.Add(100 * time.Second)}
	if got != want {
		t.Fatalf("read %+v, want %+v", got, want)
	}
	r.add(attemptSample{at: at, took: 2 * time.Second, failed: true})
	if got := r.read(); got.Attempts != 100 || got.Failed != 1 || got.ErrorRate != 0.01 || got.P99Ms != 100 {
		t.Fatalf("after one failure: %+v", got)
	}
}
