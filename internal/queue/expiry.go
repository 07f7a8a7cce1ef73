package queue

import (
	"context"
	"log/slog"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Sweeper is a queue that deletes expired items (Message.ExpiresAt) itself:
// the table queues, whose rows would otherwise stay when nobody reads their
// topic any more (the results topic of a gateway that is gone).
type Sweeper interface {
	// Sweep deletes every item whose expiry has passed and that nobody
	// holds (a live lease keeps its item until it is acked or runs out),
	// and returns how many it deleted.
	Sweep(ctx context.Context) (int64, error)
}

// DefaultSweepEvery is how often the table queues sweep in the background.
// Expiries are minutes apart from their enqueue (agent results: the callers'
// wait plus a margin), so a minute late is nothing, and a sweep that finds
// nothing is one indexed look.
const DefaultSweepEvery = time.Minute

// SweepBatch bounds the rows one statement of a sweep deletes, so a sweep
// of many never holds a long transaction; a sweep repeats until a batch
// comes back short.
const SweepBatch = 1000

// RunSweeps calls s.Sweep every `every` until done is closed. A failed sweep
// is logged and tried again at the next tick: the rows wait, nothing is lost.
func RunSweeps(done <-chan struct{}, every time.Duration, s Sweeper, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-done
		cancel()
	}()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		n, err := s.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("expired queue items not swept; next try in "+every.String(), "error", fault.From(err))
		case n > 0:
			log.Debug("expired queue items swept", "items", n)
		}
	}
}
