package ratelimit

import (
	"context"
	"sync"
	"time"
)

// MemoryShared is Shared in memory, for tests: several Limiters given one
// MemoryShared behave as gateways sharing a store. Fail makes every call
// fail with the error it returns (nil: none), as a store that went away.
type MemoryShared struct {
	Fail func() error

	mu     sync.Mutex
	counts map[memShareKey]int64
	tats   map[memShareKey]time.Time
	slots  map[string]memSlot
}

type memShareKey struct {
	account, kind string
	start         int64
}

type memSlot struct {
	account string
	expires time.Time
}

var _ Shared = (*MemoryShared)(nil)

// NewMemoryShared makes an empty MemoryShared.
func NewMemoryShared() *MemoryShared {
	return &MemoryShared{counts: map[memShareKey]int64{}, tats: map[memShareKey]time.Time{}, slots: map[string]memSlot{}}
}

func (m *MemoryShared) fail(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.Fail != nil {
		return m.Fail()
	}
	return nil
}

// Count implements Shared.
func (m *MemoryShared) Count(ctx context.Context, c SharedCount) (SharedCounted, error) {
	if err := m.fail(ctx); err != nil {
		return SharedCounted{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := SharedCounted{Taken: true, Counts: make([]int64, len(c.Windows))}
	for i, w := range c.Windows {
		out.Counts[i] = m.counts[memShareKey{c.Account, w.Kind, w.Start.UnixMicro()}]
		if w.Limit > 0 && out.Counts[i]+c.N > w.Limit {
			out.Taken = false
		}
	}
	bk := memShareKey{c.Account, c.BucketKind, 0}
	tat := m.tats[bk]
	if c.BucketKind != "" {
		next := tat
		if next.Before(c.At) {
			next = c.At
		}
		next = next.Add(time.Duration(c.N) * c.Interval)
		if next.Sub(c.At) > time.Duration(c.Burst)*c.Interval {
			out.Taken = false
		}
		if out.Taken {
			tat = next
		}
	}
	if out.Taken {
		for i, w := range c.Windows {
			out.Counts[i] += c.N
			m.counts[memShareKey{c.Account, w.Kind, w.Start.UnixMicro()}] = out.Counts[i]
		}
		if c.BucketKind != "" {
			m.tats[bk] = tat
		}
	}
	if c.BucketKind != "" && tat.After(c.At) {
		out.TAT = tat
	}
	return out, nil
}

// TakeSlot implements Shared.
func (m *MemoryShared) TakeSlot(ctx context.Context, account, id string, max int, at, expires time.Time) (int, bool, error) {
	if err := m.fail(ctx); err != nil {
		return 0, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	held := 0
	for sid, s := range m.slots {
		switch {
		case !s.expires.After(at):
			delete(m.slots, sid)
		case s.account == account:
			held++
		}
	}
	if _, ok := m.slots[id]; ok {
		m.slots[id] = memSlot{account, expires}
		return held, true, nil
	}
	if max > 0 && held >= max {
		return held, false, nil
	}
	m.slots[id] = memSlot{account, expires}
	return held + 1, true, nil
}

// RenewSlots implements Shared.
func (m *MemoryShared) RenewSlots(ctx context.Context, ids []string, expires time.Time) error {
	if err := m.fail(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if s, ok := m.slots[id]; ok {
			s.expires = expires
			m.slots[id] = s
		}
	}
	return nil
}

// ReleaseSlot implements Shared.
func (m *MemoryShared) ReleaseSlot(ctx context.Context, id string) error {
	if err := m.fail(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.slots, id)
	return nil
}

// CountSlots implements Shared.
func (m *MemoryShared) CountSlots(ctx context.Context, account string, at time.Time) (int, error) {
	if err := m.fail(ctx); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.slots {
		if s.account == account && s.expires.After(at) {
			n++
		}
	}
	return n, nil
}
