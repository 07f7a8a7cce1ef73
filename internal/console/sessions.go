package console

import (
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/ids"
)

// session is one sign-in: the random id its cookie holds, the CSRF token
// its forms carry, and the gateway connection of the key presented (which
// holds the key; nothing here does).
type session struct {
	id      string
	csrf    string
	conn    Conn
	account string
	admin   bool
	expires time.Time
}

// sessions are the console's sign-ins, in this process's memory: a gateway
// restarted, or another gateway behind the same balancer, asks for the key
// again (docs/console.md). Bounded by max; the one closest to expiring is
// dropped first.
type sessions struct {
	ttl   time.Duration
	max   int
	clock clock.Clock

	mu   sync.Mutex
	byID map[string]*session
}

func newSessions(ttl time.Duration, max int, clk clock.Clock) *sessions {
	return &sessions{ttl: ttl, max: max, clock: clk, byID: map[string]*session{}}
}

// add keeps a new sign-in of conn and returns it.
func (s *sessions) add(conn Conn) *session {
	now := s.clock.Now()
	ss := &session{id: ids.New(ids.ConsoleSession), csrf: ids.New(ids.ConsoleCSRF), conn: conn,
		account: conn.AccountID(), admin: conn.Admin(), expires: now.Add(s.ttl)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byID) >= s.max {
		s.sweepLocked(now)
	}
	for len(s.byID) >= s.max {
		var oldest *session
		for _, o := range s.byID {
			if oldest == nil || o.expires.Before(oldest.expires) {
				oldest = o
			}
		}
		delete(s.byID, oldest.id)
	}
	s.byID[ss.id] = ss
	return ss
}

// get is the live sign-in of id, or nil.
func (s *sessions) get(id string) *session {
	if id == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.byID[id]
	if ss == nil {
		return nil
	}
	if !s.clock.Now().Before(ss.expires) {
		delete(s.byID, id)
		return nil
	}
	return ss
}

// end forgets a sign-in (sign-out, or its key refused).
func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

func (s *sessions) sweepLocked(now time.Time) {
	for id, ss := range s.byID {
		if !now.Before(ss.expires) {
			delete(s.byID, id)
		}
	}
}
