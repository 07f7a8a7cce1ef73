package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// pruneEvery is how often a Stored deletes expired session values.
const pruneEvery = time.Minute

// Stored keeps sessionStorage and file values in the store (store.Values),
// so that every gateway sharing the store (PostgreSQL) sees the same values:
// a session's next call, or an execution taken over by another gateway after
// a crash, finds what was stored. Session values expire SessionTTL after they
// were last written, as in Memory; file values never expire. A scope (one
// session, or one account's files) holds at most store.MaxValuesPerScope
// keys.
//
// Keys follow the one storage rule (storekey). Unlike Files on disk, a key
// and its "sub-folder" are independent names here: "a" and "a/b" may both
// hold values.
type Stored struct {
	Values store.Values
	// SessionTTL is how long a sessionStorage value lives; default 1 h.
	SessionTTL time.Duration
	Clock      clock.Clock  // nil: the real clock
	Logger     *slog.Logger // nil: discard

	mu        sync.Mutex
	lastPrune time.Time
}

var _ op.Storage = (*Stored)(nil)

func (s *Stored) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}

// scope is where an area's values are kept in the store.
func (s *Stored) scope(a op.Area) (string, error) {
	switch a.Storage {
	case a2e.StorageSession:
		if a.SessionID == "" {
			return "", fault.New(fault.Internal, "sessionStorage needs a session").
				WithDetail("storage", a.Storage)
		}
		return a.SessionID, nil
	case a2e.StorageFile:
		return "", nil
	}
	return "", fault.New(fault.Internal, "storage %q is not kept here", a.Storage).WithDetail("storage", a.Storage)
}

// Put stores value as JSON.
func (s *Stored) Put(ctx context.Context, a op.Area, key string, value any) error {
	if err := checkArea(a, key); err != nil {
		return err
	}
	scope, err := s.scope(a)
	if err != nil {
		return err
	}
	data, err := json.Marshal(value)
	if err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "the value cannot be stored as JSON").WithCause(err)
	}
	v := store.Value{Area: a.Storage, AccountID: a.Account, Scope: scope, Key: key, Value: data}
	if a.Storage == a2e.StorageSession {
		ttl := s.SessionTTL
		if ttl <= 0 {
			ttl = DefaultSessionTTL
		}
		now := s.now()
		v.ExpiresAt = now.Add(ttl)
		s.prune(now)
	}
	return s.Values.PutValue(ctx, v)
}

// Get reads a value back; an expired session value reads as missing.
func (s *Stored) Get(ctx context.Context, a op.Area, key string) (any, bool, error) {
	if err := checkArea(a, key); err != nil {
		return nil, false, err
	}
	scope, err := s.scope(a)
	if err != nil {
		return nil, false, err
	}
	data, ok, err := s.Values.GetValue(ctx, a.Storage, a.Account, scope, key)
	if err != nil || !ok {
		return nil, false, err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		return nil, false, fault.New(fault.Internal, "stored value of key %q is unreadable", truncateKey(key)).WithCause(err)
	}
	return v, true, nil
}

// prune deletes expired session values, at most once a minute per process
// and in the background, so sessions never read again do not stay forever.
// Every gateway prunes; a prune that finds nothing costs one indexed delete.
func (s *Stored) prune(now time.Time) {
	s.mu.Lock()
	due := now.Sub(s.lastPrune) >= pruneEvery
	if due {
		s.lastPrune = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := s.Values.PruneValues(ctx, now); err != nil && s.Logger != nil {
			s.Logger.Warn("expired session values not deleted; retrying later", "error", fault.From(err))
		}
	}()
}
