package kafkaq

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/telemetry"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// tp is a Kafka topic partition.
type tp struct {
	topic     string
	partition int32
}

// entry is a queued item this member holds: read from a partition it owns.
type entry struct {
	topic, id  string
	group      string // queue.Message.Group
	payload    []byte
	trace      telemetry.Carrier // the record's trace context headers
	attempts   int               // deliveries so far
	enqueuedAt time.Time
	due        time.Time // when it may be leased: not-before, nack, lease end
	token      string    // of the current lease, "" when not leased
	owner      string
	until      time.Time
	src        tp
	offset     int64
	seq        uint64 // reading order, the tie-break after due
	moving     bool   // a Nack is writing its copy to a retry topic
}

// reservation holds an id this member produced (or moved to a retry topic)
// until the record is read, or until it expires when the record's partition
// belongs to another member.
type reservation struct{ expires time.Time }

// state is the memory of one member, under one lock.
type state struct {
	mu       sync.Mutex
	items    map[string]map[string]*entry       // topic -> id -> entry
	reserved map[string]map[string]*reservation // topic -> id
	// Per partition: the offsets read and not yet done, and the next offset
	// to read; the committable offset is the lowest open one, or next.
	open  map[tp]map[int64]bool
	next  map[tp]int64
	owned map[tp]bool
	wrote map[tp]int64 // the highest offset this member produced
	rebal time.Time    // last assignment change
	// elsewhere is what the group showed assigned to other members, asked
	// at elsewhereAt; it holds until the next assignment change here.
	elsewhere   map[tp]bool
	elsewhereAt time.Time
	dirty       map[tp]bool
	seq         uint64
	signals     map[string]chan struct{}
	closed      bool
	// served says when each group of a topic was last served (a counter
	// per topic; absent: never), for fair leases (visibleLocked).
	served map[string]map[string]uint64
}

func (s *state) init() {
	s.items = map[string]map[string]*entry{}
	s.reserved = map[string]map[string]*reservation{}
	s.open = map[tp]map[int64]bool{}
	s.next = map[tp]int64{}
	s.owned = map[tp]bool{}
	s.wrote = map[tp]int64{}
	s.dirty = map[tp]bool{}
	s.signals = map[string]chan struct{}{}
	s.served = map[string]map[string]uint64{}
}

// reserve claims an id for an Enqueue: false when it is queued here already.
func (s *state) reserve(topic, id string, expires time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.items[topic][id] != nil {
		return false
	}
	if r := s.reserved[topic][id]; r != nil && time.Now().Before(r.expires) {
		return false
	}
	s.reserveLocked(topic, id, expires)
	return true
}

func (s *state) reserveLocked(topic, id string, expires time.Time) {
	m := s.reserved[topic]
	if m == nil {
		m = map[string]*reservation{}
		s.reserved[topic] = m
	}
	m[id] = &reservation{expires: expires}
}

func (s *state) unreserve(topic, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reserved[topic], id)
}

func (s *state) produced(p tp, offset int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if offset > s.wrote[p] || s.wrote[p] == 0 {
		s.wrote[p] = offset
	}
}

// knownElsewhere is the other members' partitions when they were asked
// after the last assignment change here (nil otherwise).
func (s *state) knownElsewhere() map[tp]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.elsewhere == nil || !s.elsewhereAt.After(s.rebal) {
		return nil
	}
	return s.elsewhere
}

func (s *state) setElsewhere(e map[tp]bool, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.elsewhere, s.elsewhereAt = e, at
}

// caughtUp: every offset this member produced to topics of kts was read
// here, or its partition is another member's. elsewhere holds the
// partitions the group assigned to other members when last looked at (nil:
// not looked). A rebalance that ended after a topic was added is no proof:
// it may have begun before the topic was known. waitingOnOthers says
// whether what is missing is only partitions not owned here (worth asking
// the group).
func (s *state) caughtUp(kts map[string]bool, elsewhere map[tp]bool) (ok, waitingOnOthers bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok = true
	for p, off := range s.wrote {
		if !kts[p.topic] {
			continue
		}
		if s.owned[p] {
			if s.next[p] <= off {
				return false, false
			}
			continue
		}
		if !elsewhere[p] { // nil: not asked yet
			ok, waitingOnOthers = false, true
		}
	}
	return ok, waitingOnOthers
}

// add takes a record read from p in: a new entry, unless the id is queued
// here already (a copy produced through another member), which is dropped.
func (s *state) add(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := e.src
	if e.offset >= s.next[p] {
		s.next[p] = e.offset + 1
	}
	s.dirty[p] = true
	if !s.owned[p] {
		return
	}
	delete(s.reserved[e.topic], e.id)
	m := s.items[e.topic]
	if m == nil {
		m = map[string]*entry{}
		s.items[e.topic] = m
	}
	if old := m[e.id]; old != nil {
		if !old.moving {
			return // a copy of a queued id: done at once, not opened
		}
		s.finishLocked(old) // the copy a Nack wrote arrived first
	}
	s.seq++
	e.seq = s.seq
	m[e.id] = e
	o := s.open[p]
	if o == nil {
		o = map[int64]bool{}
		s.open[p] = o
	}
	o[e.offset] = true
	s.wakeLocked(e.topic)
}

// finish drops an entry; its offset is done.
func (s *state) finishLocked(e *entry) {
	delete(s.items[e.topic], e.id)
	delete(s.open[e.src], e.offset)
	s.dirty[e.src] = true
}

// commitOffsets returns the committable offset of every partition changed
// since the last call.
func (s *state) commitOffsets() map[tp]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[tp]int64{}
	for p := range s.dirty {
		if !s.owned[p] {
			continue
		}
		low := s.next[p]
		for off := range s.open[p] {
			if off < low {
				low = off
			}
		}
		out[p] = low
	}
	s.dirty = map[tp]bool{}
	return out
}

// assign and revoke follow the group's decisions.
func (s *state) assign(ps []tp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		s.owned[p] = true
	}
	s.rebal = time.Now() // records read from them wake the waiters
}

func (s *state) revoke(ps []tp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gone := map[tp]bool{}
	for _, p := range ps {
		gone[p] = true
		delete(s.owned, p)
		delete(s.open, p)
		delete(s.next, p)
		delete(s.dirty, p)
	}
	for _, m := range s.items {
		for id, e := range m {
			if gone[e.src] {
				delete(m, id)
			}
		}
	}
	s.rebal = time.Now()
}

func (s *state) close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.closed = true
	s.wakeAllLocked()
	return true
}

func (s *state) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// visibleLocked returns up to n due entries of topic, round-robin across
// their groups (queue.Message.Group): the group this member served least
// recently first (ties: the older first entry), oldest first within a
// group; the groups that gave one are marked served.
func (s *state) visibleLocked(topic string, n int, now time.Time) []*entry {
	var due []*entry
	for _, e := range s.items[topic] {
		if !e.due.After(now) {
			due = append(due, e)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].due.Equal(due[j].due) {
			return due[i].due.Before(due[j].due)
		}
		return due[i].seq < due[j].seq
	})
	served := s.served[topic]
	if served == nil {
		served = map[string]uint64{}
		s.served[topic] = served
	}
	index := map[string]int{}
	var groups []string
	var perGroup [][]*entry
	for _, e := range due {
		g, ok := index[e.group]
		if !ok {
			g = len(groups)
			index[e.group] = g
			groups = append(groups, e.group)
			perGroup = append(perGroup, nil)
		}
		perGroup[g] = append(perGroup[g], e)
	}
	order := make([]int, len(groups))
	for g := range order {
		order[g] = g
	}
	// Stable: groups first seen earlier (older first entries) win ties.
	sort.SliceStable(order, func(i, j int) bool { return served[groups[order[i]]] < served[groups[order[j]]] })
	sorted := make([][]*entry, len(order))
	for k, g := range order {
		sorted[k] = perGroup[g]
	}
	picked, gave := queue.Interleave(sorted, n)
	var top uint64
	for _, v := range served {
		top = max(top, v)
	}
	for k, g := range gave {
		served[groups[order[g]]] = top + uint64(k) + 1
	}
	if len(served) > 2*len(groups)+64 {
		// Forget the groups with nothing due here; they count as never
		// served when they come back, which is fair: nothing of theirs waited.
		for g := range served {
			if _, ok := index[g]; !ok {
				delete(served, g)
			}
		}
	}
	return picked
}

// nextDueLocked is the earliest time something of topic comes due.
func (s *state) nextDueLocked(topic string) time.Time {
	var next time.Time
	for _, e := range s.items[topic] {
		if next.IsZero() || e.due.Before(next) {
			next = e.due
		}
	}
	return next
}

func (s *state) wakeLocked(topic string) {
	if sig := s.signals[topic]; sig != nil {
		close(sig)
		delete(s.signals, topic)
	}
}

func (s *state) wakeAllLocked() {
	for t, sig := range s.signals {
		close(sig)
		delete(s.signals, t)
	}
}
