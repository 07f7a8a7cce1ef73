package bridge

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

var ctx = context.Background()

// localQueue is a local queue on a SQLite store of its own.
func localQueue(t testing.TB) queue.Queue {
	t.Helper()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return local.New(db, nil)
}

// call is one Invoke a fakeInvoker received.
type call struct {
	name, taskID, correlationID string
	input                       json.RawMessage
}

// fakeInvoker answers through fn and records every call.
type fakeInvoker struct {
	mu    sync.Mutex
	calls []call
	fn    func(ctx context.Context, n int, c call) (json.RawMessage, error)
}

func (f *fakeInvoker) Invoke(ctx context.Context, name, taskID string, input json.RawMessage, corr string) (json.RawMessage, error) {
	c := call{name: name, taskID: taskID, correlationID: corr, input: input}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	n := len(f.calls)
	f.mu.Unlock()
	if f.fn == nil {
		return json.RawMessage(`{"echo":` + string(input) + `}`), nil
	}
	return f.fn(ctx, n, c)
}

func (f *fakeInvoker) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// start runs fn in the background until the test ends (or stop is called)
// and waits for it to return.
func start(t testing.TB, fn func(ctx context.Context)) (stop func()) {
	t.Helper()
	c, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); fn(c) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Error("a background loop did not stop within 30 s")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// eventually polls cond until it holds, failing the test after 20 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
