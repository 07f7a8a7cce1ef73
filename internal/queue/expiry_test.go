package queue_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue"
)

type countingSweeper struct{ calls atomic.Int64 }

func (s *countingSweeper) Sweep(context.Context) (int64, error) {
	if s.calls.Add(1) == 1 {
		return 0, errors.New("the database is away") // a failure does not stop the sweeps
	}
	return 1, nil
}

// RunSweeps sweeps again and again, past a failure, and returns when done
// closes.
func TestRunSweeps(t *testing.T) {
	s := &countingSweeper{}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() { queue.RunSweeps(done, time.Millisecond, s, slog.New(slog.DiscardHandler)); close(ended) }()
	deadline := time.Now().Add(20 * time.Second)
	for s.calls.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sweeps in 20 s", s.calls.Load())
		}
		time.Sleep(time.Millisecond)
	}
	close(done)
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("RunSweeps did not return after done closed")
	}
}
