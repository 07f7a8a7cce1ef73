package agent

import (
	"slices"
	"sync"
	"time"
)

// recentWindow is how many of an agent's latest attempts its recent figures
// are read from: a fixed ring, so memory per agent is bounded however many
// calls it gets.
const recentWindow = 100

// Recent is what an agent's latest attempts say: how many there were (at
// most recentWindow), how many failed, the error rate, and the latency's
// median and 99th percentile, in milliseconds. An attempt counts as
// failed when the agent did not do the work (a network error, a timeout,
// an error answer); one given up on by the caller is not counted.
type Recent struct {
	Attempts  int       `json:"attempts"`
	Failed    int       `json:"failed"`
	ErrorRate float64   `json:"error_rate"`
	P50Ms     int64     `json:"p50_ms"`
	P99Ms     int64     `json:"p99_ms"`
	Last      time.Time `json:"last,omitzero"`
}

type attemptSample struct {
	at     time.Time
	took   time.Duration
	failed bool
}

// recent is one agent's ring of its latest attempts.
type recent struct {
	mu   sync.Mutex
	ring [recentWindow]attemptSample
	n    int // samples held, up to recentWindow
	next int // where the next one goes
}

func (r *recent) add(s attemptSample) {
	r.mu.Lock()
	r.ring[r.next] = s
	r.next = (r.next + 1) % recentWindow
	r.n = min(r.n+1, recentWindow)
	r.mu.Unlock()
}

func (r *recent) read() Recent {
	r.mu.Lock()
	held := slices.Clone(r.ring[:r.n])
	r.mu.Unlock()
	out := Recent{Attempts: len(held)}
	if len(held) == 0 {
		return out
	}
	took := make([]time.Duration, len(held))
	for i, s := range held {
		took[i] = s.took
		if s.failed {
			out.Failed++
		}
		if s.at.After(out.Last) {
			out.Last = s.at
		}
	}
	slices.Sort(took)
	// The nearest rank: the smallest value at or above the quantile's share.
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(took))+0.999999) - 1
		return took[max(0, min(i, len(took)-1))]
	}
	out.ErrorRate = float64(out.Failed) / float64(len(held))
	out.P50Ms, out.P99Ms = rank(0.5).Milliseconds(), rank(0.99).Milliseconds()
	return out
}

// recentOf returns agent name's ring, making it on first use.
func (inv *Invoker) recentOf(name string) *recent {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	r := inv.recent[name]
	if r == nil {
		r = &recent{}
		inv.recent[name] = r
	}
	return r
}

// Recent shows what agent name's latest attempts from this process say
// (nothing when it has had none).
func (inv *Invoker) Recent(name string) Recent {
	inv.mu.Lock()
	r := inv.recent[name]
	inv.mu.Unlock()
	if r == nil {
		return Recent{}
	}
	return r.read()
}
