package ratelimit

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
)

// DefaultFlushInterval is how often hour and day counters are saved.
const DefaultFlushInterval = 10 * time.Second

// Options configure a Limiter.
type Options struct {
	Clock clock.Clock // nil: the real clock
	// Defaults fill the zero fields of the Limits each call passes; zero
	// fields here are DefaultLimits'.
	Defaults Limits
	// Persister keeps hour and day counters across restarts; nil: memory only.
	Persister Persister
	// FlushInterval is how often dirty counters are saved and idle accounts
	// forgotten (0: the default; negative: only on Flush and Close).
	FlushInterval time.Duration
	Logger        *slog.Logger // nil: discard
	// Shared turns on the shared mode (see shared.go): every count and
	// concurrent-execution slot is kept in the store, so processes sharing
	// it enforce one limit per account. nil: this process counts alone.
	Shared Shared
	// SlotTTL is how long a slot outlives a process that died without
	// releasing it (shared mode; default DefaultSlotTTL). Live slots are
	// renewed every third of it.
	SlotTTL time.Duration
	// SharedTimeout bounds each store call of the shared mode (default
	// DefaultSharedTimeout); past it the process decides alone.
	SharedTimeout time.Duration
}

// Limiter holds every account's counters. It is safe for concurrent use.
type Limiter struct {
	clock    clock.Clock
	defaults Limits
	persist  Persister
	log      *slog.Logger
	accounts sync.Map // account -> *state

	flushMu sync.Mutex // one flush at a time
	stop    chan struct{}
	done    chan struct{}
	closed  atomic.Bool

	shared    *sharedState // nil: single-process mode
	renewDone chan struct{}
}

// Open makes a limiter, loads the persisted counters of the current hour and
// day windows, and starts the periodic flush.
func Open(ctx context.Context, opts Options) (*Limiter, error) {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	lim := &Limiter{clock: opts.Clock, defaults: opts.Defaults.Or(DefaultLimits()),
		persist: opts.Persister, log: opts.Logger, stop: make(chan struct{}), done: make(chan struct{})}
	if err := lim.load(ctx); err != nil {
		return nil, err
	}
	lim.renewDone = make(chan struct{})
	if opts.Shared != nil {
		lim.shared = &sharedState{store: opts.Shared, ttl: opts.SlotTTL, timeout: opts.SharedTimeout, slots: map[string]struct{}{}}
		if lim.shared.ttl <= 0 {
			lim.shared.ttl = DefaultSlotTTL
		}
		if lim.shared.timeout <= 0 {
			lim.shared.timeout = DefaultSharedTimeout
		}
		go lim.renewLoop()
	} else {
		close(lim.renewDone)
	}
	interval := opts.FlushInterval
	if interval == 0 {
		interval = DefaultFlushInterval
	}
	if interval < 0 {
		close(lim.done)
		return lim, nil
	}
	go lim.flushLoop(interval)
	return lim, nil
}

// Defaults are the server's limits that fill an account's zero fields.
func (lim *Limiter) Defaults() Limits { return lim.defaults }

// Allow counts one request of account against the request windows.
func (lim *Limiter) Allow(account string, l Limits) Decision {
	return lim.take(account, requestClass, l)
}

// AllowAPICall counts one HTTP attempt of an ApiCall against the API-call
// windows (RESOLUTIONS: the "API calls" limits count HTTP attempts).
func (lim *Limiter) AllowAPICall(account string, l Limits) Decision {
	return lim.take(account, apiCallClass, l)
}

func (lim *Limiter) take(account string, c class, l Limits) Decision {
	l = l.Or(lim.defaults)
	if lim.shared != nil {
		return lim.takeShared(account, c, l)
	}
	now := lim.clock.Now()
	s := lim.locked(account)
	defer s.mu.Unlock()
	return s.take(c, l, now)
}

// WaitAPICall waits, on the limiter's clock, until an API call of account may
// pass and counts it. It waits only while the wait fits within maxWait and
// before ctx's deadline; otherwise it returns the refusal's RateLimited error
// at once, so an execution fails fast instead of sleeping past its budget.
func (lim *Limiter) WaitAPICall(ctx context.Context, account string, l Limits, maxWait time.Duration) error {
	waited := time.Duration(0)
	for {
		d := lim.AllowAPICall(account, l)
		if d.Allowed {
			return nil
		}
		if waited+d.RetryAfter > maxWait {
			return d.Err()
		}
		if dl, ok := ctx.Deadline(); ok && lim.clock.Now().Add(d.RetryAfter).After(dl) {
			return d.Err()
		}
		if err := lim.clock.Sleep(ctx, d.RetryAfter); err != nil {
			return err
		}
		waited += d.RetryAfter
	}
}

// Acquire takes one of account's concurrent-execution slots. When allowed, the
// caller must call release once the execution ends (extra calls do nothing);
// when refused, release is a no-op and the decision says why.
func (lim *Limiter) Acquire(account string, l Limits) (release func(), d Decision) {
	max := l.Or(lim.defaults).MaxConcurrentExecutions
	if lim.shared != nil && max > 0 {
		return lim.acquireShared(account, max)
	}
	return lim.acquireLocal(account, max)
}

// acquireLocal takes a slot this process counts alone (an unlimited account's
// in shared mode too: there is nothing to share).
func (lim *Limiter) acquireLocal(account string, max int) (release func(), d Decision) {
	s := lim.locked(account)
	defer s.mu.Unlock()
	if max > 0 && s.inflight >= max {
		// Nobody knows when an execution ends; a second is a fair hint.
		return func() {}, Decision{Window: ConcurrentExecutions, Limit: max, RetryAfter: time.Second}
	}
	s.inflight++
	d = Decision{Allowed: true, Window: ConcurrentExecutions}
	if max > 0 {
		d.Limit, d.Remaining = max, max-s.inflight
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		})
	}, d
}

// state returns account's state, making it on first use.
func (lim *Limiter) state(account string) *state {
	if s, ok := lim.accounts.Load(account); ok {
		return s.(*state)
	}
	s, _ := lim.accounts.LoadOrStore(account, new(state))
	return s.(*state)
}

// locked returns account's live state, locked: a state evicted between the
// lookup and the lock is looked up again.
func (lim *Limiter) locked(account string) *state {
	for {
		s := lim.state(account)
		s.mu.Lock()
		if !s.gone {
			return s
		}
		s.mu.Unlock()
	}
}

// Close stops the periodic flush and saves what is dirty.
func (lim *Limiter) Close(ctx context.Context) error {
	if lim.closed.Swap(true) {
		return nil
	}
	close(lim.stop)
	<-lim.done
	<-lim.renewDone
	return lim.Flush(ctx)
}

func (lim *Limiter) flushLoop(interval time.Duration) {
	defer close(lim.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-lim.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), interval)
			if err := lim.Flush(ctx); err != nil {
				lim.log.Warn("rate-limit counters not saved; retrying at the next flush", "err", err)
			}
			cancel()
		}
	}
}
