package engine

import (
	"context"
	"strconv"
	"sync"
)

// branchPos is the position of branch k of the fork at pos.
func branchPos(pos string, k int) string { return pos + "/b" + strconv.Itoa(k) }

// runFork runs the branches of a fork at the same time on the frame's data
// model (not on overlays, unlike a concurrent loop: branches have no loop
// variables to keep apart, and what they write must be seen after the fork).
// The first branch to halt (a failure under onError stop, a suspension, a
// timeout) cancels the others. A branch finished before a restart is not run
// again; its steps are skipped by position like any finished step.
func (ex *execution) runFork(f *frame, pos string, st *Step, d *Decision) halt {
	if len(d.Branches) == 1 {
		_, h := ex.runSteps(f.nested(), branchPos(pos, 0), d.Branches[0])
		return h
	}
	ctx, cancel := context.WithCancelCause(f.ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	first := haltNone
	for k, branch := range d.Branches {
		bf := f.nested()
		bf.ctx, bf.forked = ctx, true
		wg.Go(func() {
			_, h := ex.runSteps(bf, branchPos(pos, k), branch)
			if h == haltNone {
				return
			}
			mu.Lock()
			if first == haltNone || first == haltAborted && h != haltAborted {
				first = h
			}
			mu.Unlock()
			cancel(errSiblingHalted)
		})
	}
	wg.Wait()
	if first != haltNone {
		return first
	}
	if f.ctx.Err() != nil {
		return ex.interrupted(f, pos, st)
	}
	return haltNone
}
