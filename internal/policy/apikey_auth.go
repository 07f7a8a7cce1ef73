package policy

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
)

// KeyLookup finds a stored key record by its public id. The store implements
// it; MemoryKeys is the in-memory one.
type KeyLookup interface {
	LookupKey(ctx context.Context, id string) (KeyRecord, bool, error)
}

// Authenticator turns a request's key into the stored record of the account
// it belongs to.
type Authenticator struct {
	Keys   KeyLookup
	Pepper Pepper
	Clock  clock.Clock // nil: the real clock
}

// Authenticate authenticates the key of an HTTP request (KeyFromHeader).
func (a *Authenticator) Authenticate(ctx context.Context, h http.Header) (KeyRecord, error) {
	k, err := KeyFromHeader(h)
	if err != nil {
		return KeyRecord{}, err
	}
	return a.Verify(ctx, k)
}

// AuthenticateKey authenticates a key given as text (a session handshake's
// auth_token).
func (a *Authenticator) AuthenticateKey(ctx context.Context, text string) (KeyRecord, error) {
	k, err := ParseKey(text)
	if err != nil {
		return KeyRecord{}, err
	}
	return a.Verify(ctx, k)
}

// Verify looks k up and checks it. An unknown id costs the same hash as a
// known one, so response times do not tell which ids exist.
func (a *Authenticator) Verify(ctx context.Context, k Key) (KeyRecord, error) {
	rec, ok, err := a.Keys.LookupKey(ctx, k.ID())
	if err != nil {
		if fe, isFault := fault.As(err); isFault {
			return KeyRecord{}, fe
		}
		return KeyRecord{}, fault.New(fault.Unavailable, "the key store is unavailable").WithCause(err).Retry(0)
	}
	if !ok {
		rec = KeyRecord{ID: "\x00unknown"} // never matches; hashed all the same
	}
	clk := a.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	status := VerifyKey(a.Pepper, k, rec, clk.Now())
	if status != KeyValid {
		return KeyRecord{}, status.Err()
	}
	return rec, nil
}

// MemoryKeys keeps key records in memory, for tests.
type MemoryKeys struct {
	mu   sync.Mutex
	recs map[string]KeyRecord
}

// NewMemoryKeys makes an empty MemoryKeys.
func NewMemoryKeys() *MemoryKeys { return &MemoryKeys{recs: map[string]KeyRecord{}} }

var _ KeyLookup = (*MemoryKeys)(nil)

// Put stores or replaces a record.
func (m *MemoryKeys) Put(rec KeyRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec.Hash = append([]byte(nil), rec.Hash...)
	m.recs[rec.ID] = rec
}

// Revoke marks the key revoked from at on; it reports whether the key exists.
func (m *MemoryKeys) Revoke(id string, at time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[id]
	if ok {
		rec.Revoked = at
		m.recs[id] = rec
	}
	return ok
}

// LookupKey returns a copy of the record.
func (m *MemoryKeys) LookupKey(ctx context.Context, id string) (KeyRecord, bool, error) {
	if err := ctx.Err(); err != nil {
		return KeyRecord{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[id]
	rec.Hash = append([]byte(nil), rec.Hash...)
	return rec, ok, nil
}
