package storage

import (
	"context"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Defaults of Memory.
const (
	DefaultSessionTTL = time.Hour
	DefaultMaxKeys    = 10000
)

// Memory keeps values in memory: localStorage per account, sessionStorage per
// account and session. Session entries expire SessionTTL after they were last
// written. It is not durable: a server restart forgets it.
type Memory struct {
	// SessionTTL is how long a sessionStorage entry lives; default 1 h.
	SessionTTL time.Duration
	// MaxKeys bounds the keys of one scope (account, or account and session).
	MaxKeys int
	Clock   clock.Clock

	mu        sync.Mutex
	scopes    map[scope]map[string]memEntry
	lastSweep time.Time
}

type scope struct{ storage, account, session string }

type memEntry struct {
	value   any
	expires time.Time // zero: never
}

// NewMemory makes a Memory with the default bounds on clk (nil: the real clock).
func NewMemory(clk clock.Clock) *Memory {
	return &Memory{SessionTTL: DefaultSessionTTL, MaxKeys: DefaultMaxKeys, Clock: clk}
}

func (m *Memory) now() time.Time {
	if m.Clock == nil {
		return time.Now()
	}
	return m.Clock.Now()
}

func (m *Memory) scopeOf(a op.Area) scope {
	s := scope{storage: a.Storage, account: a.Account}
	if a.Storage == a2e.StorageSession {
		s.session = a.SessionID
	}
	return s
}

// Put stores value (an immutable JSON value; it is kept as given).
func (m *Memory) Put(_ context.Context, a op.Area, key string, value any) error {
	if err := checkArea(a, key); err != nil {
		return err
	}
	now := m.now()
	var expires time.Time
	if a.Storage == a2e.StorageSession {
		ttl := m.SessionTTL
		if ttl <= 0 {
			ttl = DefaultSessionTTL
		}
		expires = now.Add(ttl)
	}
	maxKeys := m.MaxKeys
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if m.scopes == nil {
		m.scopes = map[scope]map[string]memEntry{}
	}
	sc := m.scopeOf(a)
	entries := m.scopes[sc]
	if entries == nil {
		entries = map[string]memEntry{}
		m.scopes[sc] = entries
	}
	if _, exists := entries[key]; !exists && len(entries) >= maxKeys {
		return fault.Typed(fault.Invalid, fault.ExecutionError, "%s is full: at most %d keys", a.Storage, maxKeys).
			WithDetail("storage", a.Storage).WithSuggestions("Reuse keys or store fewer, larger values")
	}
	entries[key] = memEntry{value: value, expires: expires}
	return nil
}

// Get reads a value; an expired session entry reads as missing.
func (m *Memory) Get(_ context.Context, a op.Area, key string) (any, bool, error) {
	if err := checkArea(a, key); err != nil {
		return nil, false, err
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	sc := m.scopeOf(a)
	e, ok := m.scopes[sc][key]
	if !ok {
		return nil, false, nil
	}
	if !e.expires.IsZero() && !now.Before(e.expires) {
		delete(m.scopes[sc], key)
		return nil, false, nil
	}
	return e.value, true, nil
}

// sweep drops expired session entries at most once a minute, so sessions that
// are never read again do not hold memory forever. Called with mu held.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < time.Minute {
		return
	}
	m.lastSweep = now
	for sc, entries := range m.scopes {
		for k, e := range entries {
			if !e.expires.IsZero() && !now.Before(e.expires) {
				delete(entries, k)
			}
		}
		if len(entries) == 0 {
			delete(m.scopes, sc)
		}
	}
}
