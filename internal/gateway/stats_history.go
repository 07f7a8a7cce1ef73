package gateway

import (
	"context"
	"sync"
	"time"
)

// The server's own counters over the last hour, so the console's charts
// start with history rather than with what a browser saw since it opened
// the page: a sample every statsEvery, statsKept of them, in a fixed ring.
const (
	statsEvery = 10 * time.Second
	statsKept  = 360 // an hour
)

// statsSample is the counters at one moment, as admin.stats.get's history
// lists them: a reader makes rates and interval quantiles from two
// neighbours' differences.
type statsSample struct {
	Time       time.Time `json:"time"`
	Requests   float64   `json:"requests"`
	Errors     float64   `json:"errors"`
	Executions float64   `json:"executions"` // ended, every status
	Latency    []bucket  `json:"latency_buckets"`
}

// statsHistory is the ring of samples. It is safe for concurrent use.
type statsHistory struct {
	mu   sync.Mutex
	ring [statsKept]statsSample
	n    int // held, up to statsKept
	next int
}

// offer keeps s when the newest sample held is statsEvery old or more (or
// there is none): both the sampler and every admin.stats.get offer theirs.
func (h *statsHistory) offer(s statsSample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n > 0 {
		last := h.ring[(h.next+statsKept-1)%statsKept]
		if s.Time.Sub(last.Time) < statsEvery {
			return
		}
	}
	h.ring[h.next] = s
	h.next = (h.next + 1) % statsKept
	h.n = min(h.n+1, statsKept)
}

// samples are the samples held, oldest first.
func (h *statsHistory) samples() []statsSample {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]statsSample, 0, h.n)
	for i := range h.n {
		out = append(out, h.ring[(h.next+statsKept-h.n+i)%statsKept])
	}
	return out
}

// sampleStats offers a sample of the counters every statsEvery until ctx
// ends (Serve runs it). It ticks on the wall clock: a test's fake clock,
// which moves when slept on, would make it spin.
func (s *Server) sampleStats(ctx context.Context) {
	t := time.NewTicker(statsEvery)
	defer t.Stop()
	for {
		if c, err := s.readCounters(); err == nil {
			s.history.offer(c.sample)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
