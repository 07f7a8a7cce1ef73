package engine

import (
	"sync/atomic"
	"time"
)

// workerIdle is how long an idle attempt worker waits for work before it exits.
const workerIdle = 30 * time.Second

// workers runs attempts on goroutines that outlive them. Each attempt runs on
// its own goroutine so that an operation which ignores its context cannot
// hang the engine; but a new goroutine starts with a small stack and grows it
// (copying it each time) through net/http and the JSON codecs on every call,
// which cost ~10 % of an ApiCall workflow's CPU. A worker keeps its grown
// stack for the next attempt.
//
// There is no bound on workers: one is started whenever none is idle, exactly
// as many goroutines as `go f()` would start, and they exit after workerIdle.
type workers struct {
	tasks   chan func()
	started atomic.Int64 // goroutines started so far
}

func newWorkers() *workers { return &workers{tasks: make(chan func())} }

// run runs f on an idle worker, or on a new one.
func (w *workers) run(f func()) {
	select {
	case w.tasks <- f:
	default:
		w.started.Add(1)
		go w.loop(f)
	}
}

func (w *workers) loop(f func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		f()
		f = nil // let f's captures go while idle
		idle.Reset(workerIdle)
		select {
		case f = <-w.tasks:
		case <-idle.C:
			return
		}
	}
}
