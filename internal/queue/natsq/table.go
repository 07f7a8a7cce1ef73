package natsq

import (
	"sync"
	"time"
)

// leaseTable is what this Queue knows of the leases it gave: per token its
// end and state, and per stream sequence its newest token, so that a token
// is refused once spent (acked or nacked) or once the item was handed out
// again. Entries leave after their lease's end, when the time check alone
// refuses them, so the table holds about the leases alive in this process.
type leaseTable struct {
	mu     sync.Mutex
	tokens map[string]*lease
	bySeq  map[uint64]string
	size   int // len(tokens) after the last sweep
}

type leaseState int

const (
	held  leaseState = iota
	busy             // an Ack, Nack or Extend is under way
	spent            // acked, nacked, or handed out again
)

type lease struct {
	seq   uint64
	until time.Time
	state leaseState
}

func (t *leaseTable) init() {
	t.tokens = map[string]*lease{}
	t.bySeq = map[uint64]string{}
}

// add records a new delivery; an older token of the same item is spent.
func (t *leaseTable) add(token string, seq uint64, until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.bySeq[seq]; ok && old != token {
		if l := t.tokens[old]; l != nil {
			l.state = spent
		}
	}
	t.tokens[token] = &lease{seq: seq, until: until}
	t.bySeq[seq] = token
	if len(t.tokens) > 2*t.size+1024 {
		t.sweep(time.Now())
	}
}

// claim marks a held lease busy. A token this table does not know (leased
// through another Queue) is judged by the end the caller gives.
func (t *leaseTable) claim(token string, until, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.tokens[token]
	if l == nil {
		return now.Before(until)
	}
	if l.state != held || !now.Before(l.until) {
		return false
	}
	l.state = busy
	return true
}

func (t *leaseTable) settle(token string, s leaseState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.tokens[token]; l != nil {
		l.state = s
	}
}

// extend sets a new end and makes the lease held again; a token leased
// through another Queue is recorded from now on.
func (t *leaseTable) extend(token string, seq uint64, until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.tokens[token]; l != nil {
		l.until, l.state = until, held
		return
	}
	t.tokens[token] = &lease{seq: seq, until: until}
}

func (t *leaseTable) sweep(now time.Time) {
	for tok, l := range t.tokens {
		if !now.Before(l.until) && l.state != busy {
			delete(t.tokens, tok)
			if t.bySeq[l.seq] == tok {
				delete(t.bySeq, l.seq)
			}
		}
	}
	t.size = len(t.tokens)
}
