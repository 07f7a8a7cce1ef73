package gateway

import (
	"testing"
	"time"
)

// The history keeps one sample per 10 s at most, the last hour's worth,
// oldest first.
func TestStatsHistoryKeepsAnHourEvery10s(t *testing.T) {
	var h statsHistory
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.offer(statsSample{Time: at, Requests: 1})
	h.offer(statsSample{Time: at.Add(9 * time.Second), Requests: 2}) // too soon: dropped
	h.offer(statsSample{Time: at.Add(10 * time.Second), Requests: 3})
	got := h.samples()
	if len(got) != 2 || got[0].Requests != 1 || got[1].Requests != 3 {
		t.Fatalf("samples: %+v", got)
	}
	for i := 2; i < statsKept+50; i++ {
		h.offer(statsSample{Time: at.Add(time.Duration(i) * statsEvery), Requests: float64(i)})
	}
	got = h.samples()
	if len(got) != statsKept {
		t.Fatalf("%d samples held, want %d", len(got), statsKept)
	}
	for i := 1; i < len(got); i++ {
		if !got[i].Time.After(got[i-1].Time) {
			t.Fatalf("samples out of order at %d: %v then %v", i, got[i-1].Time, got[i].Time)
		}
	}
	if first, last := got[0].Requests, got[len(got)-1].Requests; first != 50 || last != statsKept+49 {
		t.Fatalf("held %v..%v, want the latest %d", first, last, statsKept)
	}
}
