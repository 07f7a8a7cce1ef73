package acpagent

import (
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// session is one ACP session: an id the editor names in its prompts, the
// editor's working directory, and a question a capability run handed back
// that the next prompt answers.
type session struct {
	id      string
	cwd     string
	last    time.Time // the end of its latest prompt, or its opening
	busy    bool      // a prompt is running
	pending *handedBack
	// asked is an agent's question without options handed back: the next
	// prompt answers it (agent.invoke with its remote_task_id).
	asked *op.AgentPending
}

// sessions are the open sessions, bounded in count and idle time. Idle ones
// are forgotten when sessions are opened or used (no timer: a process with
// no traffic holds at most max of them).
type sessions struct {
	mu   sync.Mutex
	m    map[string]*session
	max  int
	idle time.Duration
	now  func() time.Time
}

func newSessions(max int, idle time.Duration, now func() time.Time) *sessions {
	return &sessions{m: map[string]*session{}, max: max, idle: idle, now: now}
}

// sweep forgets sessions idle longer than the timeout; ss.mu is held.
func (ss *sessions) sweep(now time.Time) {
	for id, s := range ss.m {
		if !s.busy && now.Sub(s.last) > ss.idle {
			delete(ss.m, id)
		}
	}
}

func (ss *sessions) open(cwd string) (*session, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	ss.sweep(now)
	if len(ss.m) >= ss.max {
		var oldest *session
		for _, s := range ss.m {
			if !s.busy && (oldest == nil || s.last.Before(oldest.last)) {
				oldest = s
			}
		}
		if oldest == nil {
			return nil, fault.New(fault.RateLimited, "sluice acp has %d sessions, each in a prompt: wait for one to end", ss.max)
		}
		delete(ss.m, oldest.id)
	}
	s := &session{id: "sess_" + e2a.NewUUID(), cwd: cwd, last: now}
	ss.m[s.id] = s
	return s, nil
}

// take marks the session in a prompt.
func (ss *sessions) take(id string) (*session, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.sweep(ss.now())
	s, ok := ss.m[id]
	if !ok {
		return nil, acp.NewInvalidParams(map[string]any{"sessionId": id,
			"error": "no such session: it was never opened, or it was idle for over " + ss.idle.String() + " (start one with session/new)"})
	}
	if s.busy {
		return nil, fault.New(fault.Conflict, "session %s is in a prompt already: cancel it or wait for its end", id)
	}
	s.busy = true
	return s, nil
}

func (ss *sessions) release(s *session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s.busy = false
	s.last = ss.now()
}
