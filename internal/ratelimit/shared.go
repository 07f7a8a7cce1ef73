package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/ids"
)

// Shared mode. Gateways that share a store (PostgreSQL) must enforce one
// limit per account between them, so with Options.Shared every decision is
// taken by the store in one atomic step per call: the fixed windows' counts
// and the minute's token bucket (as a GCRA instant: the bucket holds limit
// tokens and gains one every minute/limit) are rows the store reads, checks
// and increments under the account's lock. There is no overshoot: a call
// passes only if the counts it sees, which every gateway sees, leave room.
// The price is one store round trip per request and per API call (measured
// in docs/scale-out.md), paid only where there is something to enforce: the
// calls of a class whose windows all have no limit are counted by each
// process alone, as the single-machine mode counts them. Concurrent executions are slots, one row each, held
// while the execution runs and renewed by the process that runs it; a process
// that dies leaves its slots to expire after SlotTTL.
//
// When the store cannot be reached, the limiter decides alone with the
// per-process state of the single-machine mode (each gateway then enforces
// the whole limit by itself, so N gateways may let N times the limit through
// until the store is back), and says so in the log. Calls that need the
// store fail on their own with 503 meanwhile.

// Shared keeps counts that several processes enforce together; the store
// implements it (the gateway adapts store.SharedLimits). Calls are atomic across processes.
type Shared interface {
	// Count adds c.N calls to every window (and the bucket) when each
	// window with a limit stays within it and the bucket has c.N tokens,
	// else nothing; c.N 0 only reads. The answer holds the counts after
	// (when taken) or as they stand, in c.Windows' order.
	Count(ctx context.Context, c SharedCount) (SharedCounted, error)
	// TakeSlot records slot id for account until expires unless max (> 0)
	// slots are held at at; it returns how many are held.
	TakeSlot(ctx context.Context, account, id string, max int, at, expires time.Time) (held int, taken bool, err error)
	// RenewSlots moves the expiry of held slots.
	RenewSlots(ctx context.Context, ids []string, expires time.Time) error
	// ReleaseSlot drops a slot.
	ReleaseSlot(ctx context.Context, id string) error
	// CountSlots is how many slots of account are held at at.
	CountSlots(ctx context.Context, account string, at time.Time) (int, error)
}

// SharedWindow is one fixed window of a SharedCount (Limit <= 0: counted,
// never refused).
type SharedWindow struct {
	Kind       string
	Start, End time.Time
	Limit      int64
}

// SharedCount asks to count N calls of Account at At. A non-empty BucketKind
// names the token bucket of Burst tokens refilled one per Interval.
type SharedCount struct {
	Account    string
	At         time.Time
	Windows    []SharedWindow
	BucketKind string
	Interval   time.Duration
	Burst      int64
	N          int64
}

// SharedCounted is the answer to a SharedCount: the counts after the call
// (or as they stand when refused) and the bucket's instant (zero: full).
type SharedCounted struct {
	Taken  bool
	Counts []int64
	TAT    time.Time
}

// Defaults of the shared mode.
const (
	DefaultSlotTTL       = 30 * time.Second
	DefaultSharedTimeout = 2 * time.Second
	// fallbackLogEvery bounds how often the fall back to local limits is
	// logged while the store is away.
	fallbackLogEvery = 10 * time.Second
)

// sharedState is the limiter's part in shared mode: the store, and the slots
// this process holds (renewed until released).
type sharedState struct {
	store   Shared
	ttl     time.Duration
	timeout time.Duration

	mu      sync.Mutex
	slots   map[string]struct{}
	lastLog time.Time
}

func (sh *sharedState) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), sh.timeout)
}

// bucketKind names the bucket row of a class's minute window.
func bucketKind(minute Window) string { return minute.String() + ":bucket" }

// sharedCount is the SharedCount of one call of class c at now.
func sharedCount(account string, c class, l Limits, now time.Time, n int64) SharedCount {
	sc := SharedCount{Account: account, At: now, N: n}
	for _, w := range c.windows {
		start := time.Unix(w.start(now), 0).UTC()
		sc.Windows = append(sc.Windows, SharedWindow{Kind: w.String(), Start: start, End: start.Add(w.Period()), Limit: int64(l.Of(w))})
	}
	if limit := l.Of(c.windows[0]); limit > 0 {
		sc.BucketKind, sc.Burst = bucketKind(c.windows[0]), int64(limit)
		// Whole microseconds, as PostgreSQL keeps times; at least one, so a
		// huge limit still has a bucket that out-of-order calls fit in.
		sc.Interval = max((time.Minute / time.Duration(limit)).Truncate(time.Microsecond), time.Microsecond)
	}
	return sc
}

// tokens is what the bucket of sc holds at sc.At when its instant is tat
// (noBucket without one).
func (sc SharedCount) tokens(tat time.Time) float64 {
	if sc.BucketKind == "" {
		return noBucket
	}
	used := 0.0
	if tat.After(sc.At) {
		used = float64(tat.Sub(sc.At)) / float64(sc.Interval)
	}
	return max(float64(sc.Burst)-used, 0)
}

// takeShared counts one call of class c in the store, or alone when the
// store cannot answer.
func (lim *Limiter) takeShared(account string, c class, l Limits) Decision {
	now := lim.clock.Now()
	if unlimited(c, l) {
		// Nothing to enforce between gateways: no round trip to the store
		// (one per request and API call was a share of what a request
		// cost on PostgreSQL, docs/performance.md). Counted here, as the
		// single-machine mode counts, for Status.
		s := lim.locked(account)
		defer s.mu.Unlock()
		return s.take(c, l, now)
	}
	sc := sharedCount(account, c, l, now, 1)
	ctx, cancel := lim.shared.ctx()
	res, err := lim.shared.store.Count(ctx, sc)
	cancel()
	if err != nil || len(res.Counts) != len(sc.Windows) {
		lim.fellBack(err)
		s := lim.locked(account)
		defer s.mu.Unlock()
		return s.take(c, l, now)
	}
	return sharedDecision(c, sc, res)
}

// unlimited reports whether no window of class c has a limit under l (and
// so there is no token bucket either: the minute's limit makes it).
func unlimited(c class, l Limits) bool {
	for _, w := range c.windows {
		if l.Of(w) > 0 {
			return false
		}
	}
	return true
}

// sharedDecision words the store's answer as the single-machine mode would.
func sharedDecision(c class, sc SharedCount, res SharedCounted) Decision {
	now := sc.At
	minute := c.windows[0]
	if !res.Taken {
		var refused *Decision
		for i, w := range c.windows {
			limit := sc.Windows[i].Limit
			if limit <= 0 || res.Counts[i]+sc.N <= limit {
				continue
			}
			d := Decision{Window: w, Limit: int(limit), Reset: sc.Windows[i].End}
			d.RetryAfter = d.Reset.Sub(now)
			if refused == nil || d.RetryAfter > refused.RetryAfter {
				refused = &d
			}
		}
		if refused != nil {
			return *refused
		}
		// The bucket refused: a token comes when the instant is within
		// burst-1 intervals of now.
		wait := res.TAT.Add(-time.Duration(sc.Burst-1) * sc.Interval).Sub(now)
		return Decision{Window: minute, Limit: int(sc.Windows[0].Limit), Reset: sc.Windows[0].End, RetryAfter: max(wait, time.Nanosecond)}
	}
	d := Decision{Allowed: true}
	tokens := sc.tokens(res.TAT)
	for i, w := range c.windows {
		limit := int(sc.Windows[i].Limit)
		if limit <= 0 {
			continue
		}
		remaining := max(limit-int(res.Counts[i]), 0)
		if i == 0 && tokens != noBucket {
			remaining = max(min(remaining, int(math.Floor(tokens))), 0)
		}
		if d.Limit == 0 || remaining < d.Remaining {
			d.Window, d.Limit, d.Remaining, d.Reset = w, limit, remaining, sc.Windows[i].End
		}
	}
	return d
}

// fellBack logs, now and then, that the store did not answer.
func (lim *Limiter) fellBack(err error) {
	sh := lim.shared
	now := time.Now()
	sh.mu.Lock()
	log := now.Sub(sh.lastLog) >= fallbackLogEvery
	if log {
		sh.lastLog = now
	}
	sh.mu.Unlock()
	if log {
		lim.log.Warn("shared rate limits cannot be read; this process limits alone until the store answers", "error", err)
	}
}

// acquireShared takes a slot in the store for an execution of account.
func (lim *Limiter) acquireShared(account string, max int) (func(), Decision) {
	sh := lim.shared
	now := lim.clock.Now()
	id := ids.New(ids.Slot)
	ctx, cancel := sh.ctx()
	held, taken, err := sh.store.TakeSlot(ctx, account, id, max, now, now.Add(sh.ttl))
	cancel()
	if err != nil {
		lim.fellBack(err)
		return lim.acquireLocal(account, max)
	}
	if !taken {
		return func() {}, Decision{Window: ConcurrentExecutions, Limit: max, RetryAfter: time.Second}
	}
	sh.mu.Lock()
	sh.slots[id] = struct{}{}
	sh.mu.Unlock()
	d := Decision{Allowed: true, Window: ConcurrentExecutions}
	if max > 0 {
		d.Limit, d.Remaining = max, max-held
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			sh.mu.Lock()
			delete(sh.slots, id)
			sh.mu.Unlock()
			ctx, cancel := sh.ctx()
			defer cancel()
			if err := sh.store.ReleaseSlot(ctx, id); err != nil {
				lim.log.Warn("an execution slot was not released; it expires by itself", "error", err)
			}
		})
	}, d
}

// renewSlots keeps the slots of executions this process still runs.
func (lim *Limiter) renewSlots() {
	sh := lim.shared
	sh.mu.Lock()
	ids := make([]string, 0, len(sh.slots))
	for id := range sh.slots {
		ids = append(ids, id)
	}
	sh.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	ctx, cancel := sh.ctx()
	defer cancel()
	if err := sh.store.RenewSlots(ctx, ids, lim.clock.Now().Add(sh.ttl)); err != nil {
		lim.log.Warn("execution slots not renewed; retrying", "error", err)
	}
}

func (lim *Limiter) renewLoop() {
	defer close(lim.renewDone)
	t := time.NewTicker(lim.shared.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-lim.stop:
			return
		case <-t.C:
			lim.renewSlots()
		}
	}
}

// localView is window w of account (limit <= 0: none) as this process
// counted it.
func (lim *Limiter) localView(account string, w Window, limit int, now time.Time) WindowStatus {
	s := lim.lookup(account)
	if s == nil {
		s = new(state) // never used: all zero
	} else {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.view(w, limit, noBucket, now)
}

// statusShared reads an account's standing from the store without counting.
func (lim *Limiter) statusShared(account string, l Limits) (Status, bool) {
	now := lim.clock.Now()
	st := Status{MaxConcurrent: l.MaxConcurrentExecutions}
	ctx, cancel := lim.shared.ctx()
	defer cancel()
	views := map[Window]WindowStatus{}
	for _, c := range []class{requestClass, apiCallClass} {
		if unlimited(c, l) {
			// Such calls are counted by each process (takeShared).
			for _, w := range c.windows {
				views[w] = lim.localView(account, w, l.Of(w), now)
			}
			continue
		}
		sc := sharedCount(account, c, l, now, 0)
		res, err := lim.shared.store.Count(ctx, sc)
		if err != nil || len(res.Counts) != len(sc.Windows) {
			lim.fellBack(err)
			return Status{}, false
		}
		tokens := sc.tokens(res.TAT)
		for i, w := range c.windows {
			limit := int(sc.Windows[i].Limit)
			v := WindowStatus{Window: w, Limit: limit, Used: int(res.Counts[i]), Reset: sc.Windows[i].End}
			v.Remaining = max(limit-v.Used, 0)
			if i == 0 && tokens != noBucket {
				v.Remaining = max(min(v.Remaining, int(math.Floor(tokens))), 0)
			}
			views[w] = v
		}
	}
	for w := range Window(numCounters) {
		st.Windows = append(st.Windows, views[w])
	}
	n, err := lim.shared.store.CountSlots(ctx, account, now)
	if err != nil {
		lim.fellBack(err)
		return Status{}, false
	}
	st.Running = n
	// Executions of an unlimited account, and any taken while the store
	// was away, are counted here only.
	if s := lim.lookup(account); s != nil {
		s.mu.Lock()
		st.Running += s.inflight
		s.mu.Unlock()
	}
	return st, true
}
