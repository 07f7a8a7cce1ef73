package engine

import (
	"runtime"
	"sync"
	"testing"
)

// Sequential attempts reuse one idle worker rather than starting a goroutine
// each; concurrent ones get as many workers as they need.
func TestWorkersReuseIdleGoroutines(t *testing.T) {
	w := newWorkers()
	for range 200 {
		done := make(chan struct{})
		w.run(func() { close(done) })
		<-done
		// Let the worker get back to waiting for work.
		for range 100 {
			runtime.Gosched()
		}
	}
	// Under load a worker may now and then not be back in time; most must be.
	if n := w.started.Load(); n > 20 {
		t.Fatalf("200 sequential attempts started %d goroutines; want idle workers reused", n)
	}

	var wg sync.WaitGroup
	release := make(chan struct{})
	started := make(chan struct{}, 20)
	for range 20 {
		wg.Add(1)
		w.run(func() {
			defer wg.Done()
			started <- struct{}{}
			<-release
		})
	}
	for range 20 {
		<-started // all 20 run at once: none waits for a busy worker
	}
	if n := w.started.Load(); n < 20 {
		t.Fatalf("20 concurrent attempts ran on %d goroutines in all", n)
	}
	close(release)
	wg.Wait()
}
