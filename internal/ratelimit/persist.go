package ratelimit

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Counter is one persisted count: account's calls in the window of w that
// began at Start.
type Counter struct {
	Account string
	Window  Window // stored by name: Window.String, ParseWindow
	Start   time.Time
	Count   int64
}

// Persister keeps hour and day counters across restarts. The store implements
// it; MemoryPersister is the in-memory one.
//
// What a crash loses: the counts of at most one flush interval (10 s by
// default), and it errs on the permissive side: after a kill -9 an account may
// make up to that many more calls in the current hour and day than its limits
// allow. Minute windows are not persisted: after a restart every account
// starts a fresh minute. A clean Close loses nothing.
type Persister interface {
	// SaveCounters stores each counter, replacing the one with the same
	// (Account, Window). The batch holds every persisted window of each
	// account that changed since the last save.
	SaveCounters(ctx context.Context, cs []Counter) error
	// LoadCounters returns every stored counter; the limiter keeps those of
	// the current windows and ignores the rest.
	LoadCounters(ctx context.Context) ([]Counter, error)
}

// Flush saves every account's changed hour and day counters and forgets
// accounts that have been idle for a whole day. On failure the counters stay
// marked as changed, so the next flush saves them.
func (lim *Limiter) Flush(ctx context.Context) error {
	lim.flushMu.Lock()
	defer lim.flushMu.Unlock()
	now := lim.clock.Now()
	var batch []Counter
	var flushed []*state
	lim.accounts.Range(func(key, value any) bool {
		s := value.(*state)
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case s.dirty && lim.persist != nil:
			for w := range Window(numCounters) {
				if windows[w].persisted && s.starts[w] != 0 {
					batch = append(batch, Counter{Account: key.(string), Window: w, Start: time.Unix(s.starts[w], 0).UTC(), Count: s.counts[w]})
				}
			}
			s.dirty = false
			flushed = append(flushed, s)
		case s.dirty:
			s.dirty = false
		case s.idle(now):
			s.gone = true
			lim.accounts.Delete(key)
		}
		return true
	})
	if len(batch) == 0 {
		return nil
	}
	if err := lim.persist.SaveCounters(ctx, batch); err != nil {
		for _, s := range flushed {
			s.mu.Lock()
			s.dirty = true
			s.mu.Unlock()
		}
		return fault.New(fault.Unavailable, "rate-limit counters could not be saved").WithCause(err)
	}
	return nil
}

// load restores the counters of the current windows.
func (lim *Limiter) load(ctx context.Context) error {
	if lim.persist == nil {
		return nil
	}
	cs, err := lim.persist.LoadCounters(ctx)
	if err != nil {
		return fault.New(fault.Unavailable, "rate-limit counters could not be loaded").WithCause(err)
	}
	now := lim.clock.Now()
	for _, c := range cs {
		w := c.Window
		if w < 0 || int(w) >= numCounters || !windows[w].persisted || c.Start.Unix() != w.start(now) || c.Count <= 0 {
			continue
		}
		s := lim.state(c.Account)
		s.starts[w], s.counts[w] = c.Start.Unix(), c.Count
	}
	return nil
}

// MemoryPersister keeps counters in memory, for tests.
type MemoryPersister struct {
	mu    sync.Mutex
	saved map[memoryKey]Counter
	saves int
}

type memoryKey struct {
	account string
	window  Window
}

// NewMemoryPersister makes an empty MemoryPersister.
func NewMemoryPersister() *MemoryPersister {
	return &MemoryPersister{saved: map[memoryKey]Counter{}}
}

var _ Persister = (*MemoryPersister)(nil)

// SaveCounters stores the counters.
func (m *MemoryPersister) SaveCounters(ctx context.Context, cs []Counter) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range cs {
		m.saved[memoryKey{c.Account, c.Window}] = c
	}
	m.saves++
	return nil
}

// LoadCounters returns every counter, ordered by account and window.
func (m *MemoryPersister) LoadCounters(ctx context.Context) ([]Counter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Counter, 0, len(m.saved))
	for _, c := range m.saved {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Counter) int {
		if c := strings.Compare(a.Account, b.Account); c != 0 {
			return c
		}
		return int(a.Window - b.Window)
	})
	return out, nil
}

// Saves is how many batches were saved.
func (m *MemoryPersister) Saves() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saves
}
