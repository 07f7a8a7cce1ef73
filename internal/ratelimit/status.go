package ratelimit

import "time"

// WindowStatus is one window's standing.
type WindowStatus struct {
	Window    Window
	Limit     int // <= 0: unlimited
	Used      int // calls counted in the current window
	Remaining int
	Reset     time.Time
}

// Status is an account's standing in every window, for
// GET /api/v1/rate-limit/status.
type Status struct {
	Windows []WindowStatus // in Window order; unlimited windows have Limit <= 0
	// Running executions against MaxConcurrentExecutions.
	Running, MaxConcurrent int
}

// Status reports account's standing without counting anything.
func (lim *Limiter) Status(account string, l Limits) Status {
	l = l.Or(lim.defaults)
	if lim.shared != nil {
		if st, ok := lim.statusShared(account, l); ok {
			return st
		}
	}
	now := lim.clock.Now()
	st := Status{MaxConcurrent: l.MaxConcurrentExecutions}
	s := lim.lookup(account)
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		st.Running = s.inflight
	} else {
		s = new(state) // never used: all zero
	}
	for w := range Window(numCounters) {
		tokens := noBucket
		limit := l.Of(w)
		if i, ok := bucketOf(w); ok && limit > 0 && s.buckets[i] != nil {
			tokens = s.buckets[i].TokensAt(now)
		}
		st.Windows = append(st.Windows, s.view(w, limit, tokens, now))
	}
	return st
}

func (lim *Limiter) lookup(account string) *state {
	if s, ok := lim.accounts.Load(account); ok {
		return s.(*state)
	}
	return nil
}

// StatusBody is the spec's status response, extended: limits, usage (named
// as the spec names it, requests_last_minute: the count of the current fixed
// window) and remaining per window, reset (epoch seconds) per window, and the
// concurrent executions. Unlimited windows are left out.
type StatusBody struct {
	AgentID   string           `json:"agent_id"`
	Limits    map[string]int   `json:"limits"`
	Usage     map[string]int   `json:"usage"`
	Remaining map[string]int   `json:"remaining"`
	Reset     map[string]int64 `json:"reset"`
	// ConcurrentExecutions is {"limit": n, "running": m}.
	ConcurrentExecutions map[string]int `json:"concurrent_executions"`
}

// Body renders s for agentID (the account, in the spec's wire name).
func (s Status) Body(agentID string) StatusBody {
	b := StatusBody{AgentID: agentID, Limits: map[string]int{}, Usage: map[string]int{},
		Remaining: map[string]int{}, Reset: map[string]int64{},
		ConcurrentExecutions: map[string]int{"running": s.Running}}
	for _, w := range s.Windows {
		if w.Limit <= 0 {
			continue
		}
		name := w.Window.String()
		b.Limits[name] = w.Limit
		b.Usage[windows[w.Window].usage] = w.Used
		b.Remaining[name] = w.Remaining
		b.Reset[name] = w.Reset.Unix()
	}
	if s.MaxConcurrent > 0 {
		b.ConcurrentExecutions["limit"] = s.MaxConcurrent
	}
	return b
}
