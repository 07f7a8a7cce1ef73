package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// connRecheck is how long a connection's principal is trusted before its
// key is checked again: as long as the account service trusts a cached
// principal without asking its store (account's principalTTL), so a
// connection sees a key revoked, an account disabled or its grants changed
// no later than a caller sending the key on each request would.
const connRecheck = 5 * time.Second

// ConnAuth is the authentication of a connection that presents its key once,
// at its handshake (an A2E session): its calls carry it instead of a key, and
// the dispatcher's authenticate step takes their principal from it.
//
// A key revoked (or an account disabled) mid-connection fails the
// connection's calls from the next check on, within connRecheck, as
// unauthenticated; once refused, the connection's calls stay refused even if
// the key came back. The connection itself is not closed: its peer learns
// why from each call's answer, and ends it.
type ConnAuth struct {
	key string // never logged

	mu      sync.Mutex
	p       *account.Principal
	checked time.Time
	refused error
}

// AccountID is the account the connection authenticated as.
func (a *ConnAuth) AccountID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.p.ID
}

// OpenConn authenticates a connection's key at its handshake: the one check
// of the key until connRecheck has passed. A refusal is audited here, as a
// refused call is in Dispatch; handshake names the handshake's method in the
// audit record.
func (d *Dispatcher) OpenConn(ctx context.Context, key, requestID, handshake string) (*ConnAuth, error) {
	now := d.clock.Now()
	p, err := d.checkKey(ctx, key)
	if err != nil {
		d.refused(requestID, handshake, err)
		return nil, err
	}
	return &ConnAuth{key: key, p: p, checked: now}, nil
}

// refused audits a connection refused at its handshake (a key that was
// wrong, or none).
func (d *Dispatcher) refused(requestID, handshake string, err error) {
	if d.audit != nil {
		d.audit.Record(AuditRecord{Time: d.clock.Now(), RequestID: requestID, Method: handshake,
			Decision: DecisionDeny, Status: string(e2a.StatusFailed), ErrorCode: fault.From(err).Kind.String()})
	}
}

// principal is the connection's principal for one of its calls, its key
// checked again when the last check is older than the dispatcher's recheck.
//
// The lock is held across the check: the connection's calls in flight wait
// for one check of the key rather than each making its own.
func (a *ConnAuth) principal(ctx context.Context, d *Dispatcher) (*account.Principal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refused != nil {
		return nil, a.refused
	}
	recheck := d.connRecheck
	if recheck <= 0 {
		recheck = connRecheck
	}
	now := d.clock.Now()
	if now.Sub(a.checked) < recheck {
		return a.p, nil
	}
	p, err := d.checkKey(ctx, a.key)
	if err != nil {
		if fault.KindOf(err) == fault.Unauthenticated {
			a.refused = err // a store that failed is asked again at the next call
		}
		return nil, err
	}
	a.p, a.checked = p, now
	return p, nil
}

// KeyID is the id of the key the connection presented.
func (a *ConnAuth) KeyID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.p.KeyID
}

// limits are the account's limits as last checked.
func (a *ConnAuth) limits() account.Limits {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.p.Limits
}
