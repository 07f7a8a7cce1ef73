package execution

import (
	"encoding/json"
	"sync"
)

// hubBuffer is how many frames a subscriber may lag behind before it is cut
// off; it then catches up from the store, where every published frame is.
const hubBuffer = 256

// storedFrame is a frame as the store keeps it: its sequence there (from 1)
// and its JSON.
type storedFrame struct {
	Seq   int64
	Data  json.RawMessage
	Final bool
}

// hub hands the frames of running executions to live subscribers (SSE). Only
// frames already in the store are published, so a subscriber that falls
// behind loses nothing: its channel is closed and it reads the store again.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[*subscription]struct{}
}

type subscription struct {
	ch     chan storedFrame
	closed bool
}

func newHub() *hub { return &hub{subs: map[string]map[*subscription]struct{}{}} }

// subscribe returns a subscription to id's frames; its channel is closed when
// the subscriber lagged (or unsubscribe was called).
func (h *hub) subscribe(id string) *subscription {
	s := &subscription{ch: make(chan storedFrame, hubBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[id] == nil {
		h.subs[id] = map[*subscription]struct{}{}
	}
	h.subs[id][s] = struct{}{}
	return s
}

func (h *hub) unsubscribe(id string, s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked(id, s)
}

func (h *hub) dropLocked(id string, s *subscription) {
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
	delete(h.subs[id], s)
	if len(h.subs[id]) == 0 {
		delete(h.subs, id)
	}
}

// cut ends every subscription to id: its followers read the store again
// (for frames another process stored).
func (h *hub) cut(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[id] {
		h.dropLocked(id, s)
	}
}

// publish hands stored frames to id's subscribers, never blocking.
func (h *hub) publish(id string, frames ...storedFrame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[id] {
		for _, f := range frames {
			select {
			case s.ch <- f:
			default:
				h.dropLocked(id, s)
			}
			if s.closed {
				break
			}
		}
	}
}

// count is the number of subscribers of id (tests).
func (h *hub) count(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[id])
}
