package gateway

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/internal/account"
)

// countingAuth counts the keys it is asked to check.
type countingAuth struct {
	next Authenticator
	n    *atomic.Int64
}

func (a countingAuth) Authenticate(ctx context.Context, key string) (*account.Principal, error) {
	a.n.Add(1)
	return a.next.Authenticate(ctx, key)
}

// CountAuthentications counts every key check of s's dispatcher from now
// on; recheck is how long a connection's principal holds (ConnAuth).
// Call it before s serves anything.
func CountAuthentications(s *Server, recheck time.Duration) *atomic.Int64 {
	n := &atomic.Int64{}
	s.dispatcher.auth = countingAuth{next: s.dispatcher.auth, n: n}
	s.dispatcher.connRecheck = recheck
	return n
}
