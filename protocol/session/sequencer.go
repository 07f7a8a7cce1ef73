package session

import "sync"

// Sequencer numbers the events of each request: the first event for a req_id
// has seq 0, each next one seq+1. It is safe for concurrent use. Forget a
// req_id when its call ends, so the table holds only calls in flight.
type Sequencer struct {
	mu   sync.Mutex
	next map[string]int
}

// Next returns the seq for the next event of reqID.
func (s *Sequencer) Next(reqID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == nil {
		s.next = map[string]int{}
	}
	n := s.next[reqID]
	s.next[reqID] = n + 1
	return n
}

// Forget drops reqID; a later Next for it starts at 0 again.
func (s *Sequencer) Forget(reqID string) {
	s.mu.Lock()
	delete(s.next, reqID)
	s.mu.Unlock()
}

// Len is the number of req_ids the sequencer holds.
func (s *Sequencer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.next)
}
