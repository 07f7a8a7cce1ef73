package queue

import (
	"context"
	"sync"
	"time"
)

// Holder keeps the lease of an item alive while its work runs: it extends
// the lease every third of d, so a live holder never loses the item while a
// dead one (its process gone) loses it within d.
type Holder struct {
	mu   sync.Mutex
	cur  Item
	lost error
	done chan struct{}
	wg   sync.WaitGroup
}

// Hold starts extending it's lease by d until Stop or ctx ends. onLost, when
// set, is called once (from the holder's goroutine) with the error of the
// first extension that failed, so the work can stop: the item may be with
// another holder by now.
func Hold(ctx context.Context, q Queue, it Item, d time.Duration, onLost func(error)) *Holder {
	h := &Holder{cur: it, done: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(d / 3)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				h.mu.Lock()
				next, err := q.Extend(ctx, h.cur, d)
				first := false
				if err == nil {
					h.cur = next
				} else if h.lost == nil && ctx.Err() == nil {
					h.lost, first = err, true
				}
				h.mu.Unlock()
				if first && onLost != nil {
					onLost(err)
				}
			}
		}
	}()
	return h
}

// Item is the item with its latest lease: pass it to Ack or Nack.
func (h *Holder) Item() Item {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur
}

// Lost is the error of the first extension that failed (nil: none did).
func (h *Holder) Lost() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost
}

// Stop ends the extensions and waits for the holder's goroutine.
func (h *Holder) Stop() {
	close(h.done)
	h.wg.Wait()
}

// Sleep is the waiting part of every Wait: it returns when wake or done is
// closed or d has passed (nil), or with ctx's error when ctx ends first.
// The caller then says whether the queue was closed meanwhile.
func Sleep(ctx context.Context, d time.Duration, wake, done <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-wake:
	case <-t.C:
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
