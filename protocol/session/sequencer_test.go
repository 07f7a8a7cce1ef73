package session_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

func TestSequencer(t *testing.T) {
	var s session.Sequencer // the zero value is ready
	for want := range 3 {
		if got := s.Next("a"); got != want {
			t.Fatalf("Next(a) = %d, want %d", got, want)
		}
	}
	if got := s.Next("b"); got != 0 {
		t.Errorf("another req_id starts at %d, want 0", got)
	}
	if s.Len() != 2 {
		t.Errorf("Len() = %d, want 2", s.Len())
	}
	s.Forget("a")
	s.Forget("never-seen") // no effect, no panic
	if s.Len() != 1 {
		t.Errorf("Len() after Forget = %d, want 1", s.Len())
	}
	if got := s.Next("a"); got != 0 {
		t.Errorf("a forgotten req_id starts again at %d, want 0", got)
	}
	if got := s.Next("b"); got != 1 {
		t.Errorf("Forget(a) moved b to %d, want 1", got)
	}
}

// TestSequencerConcurrent: many goroutines numbering events of a few
// requests get each seq exactly once, 0..n-1 per req_id (run with -race).
func TestSequencerConcurrent(t *testing.T) {
	const reqs, goroutines, perG = 5, 8, 250
	var s session.Sequencer
	var mu sync.Mutex
	got := map[string][]int{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			local := map[string][]int{}
			for i := range perG {
				id := fmt.Sprintf("req-%d", (g+i)%reqs)
				n := s.Next(id)
				if l := local[id]; len(l) > 0 && l[len(l)-1] >= n {
					t.Errorf("%s: seq %d after %d in one goroutine", id, n, l[len(l)-1])
				}
				local[id] = append(local[id], n)
			}
			mu.Lock()
			for id, seqs := range local {
				got[id] = append(got[id], seqs...)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	total := 0
	for id, seqs := range got {
		slices.Sort(seqs)
		for i, n := range seqs {
			if n != i {
				t.Fatalf("%s: seqs %v are not 0..%d", id, seqs[:min(len(seqs), 20)], len(seqs)-1)
			}
		}
		total += len(seqs)
	}
	if total != goroutines*perG || s.Len() != reqs {
		t.Errorf("%d seqs over %d req_ids, want %d over %d", total, s.Len(), goroutines*perG, reqs)
	}
	for id := range got {
		s.Forget(id)
	}
	if s.Len() != 0 {
		t.Errorf("Len() = %d after forgetting all", s.Len())
	}
}
