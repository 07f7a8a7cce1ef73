// Package audit writes the audit trail: one record per request and one per
// workflow operation. Records are handed to a bounded buffer and written to
// the store in batches by one goroutine, so a request never waits for the
// audit write. A crash loses at most the records of the last flush interval
// (FlushEvery, 100 ms by default) plus those buffered behind a slow store;
// a full buffer makes callers wait (up to MaxWait) rather than drop records.
package audit

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Config tunes a Writer.
type Config struct {
	Store      store.Audit
	Buffer     int           // records held before callers wait (default 8192)
	Batch      int           // records per write (default 500, at most store.MaxAuditBatch)
	FlushEvery time.Duration // default 100 ms
	MaxWait    time.Duration // how long a caller waits for room (default 1 s); then the record is dropped and counted
	Logger     *slog.Logger
}

// Writer is the asynchronous audit writer.
type Writer struct {
	cfg     Config
	ch      chan store.AuditRecord
	done    chan struct{}
	mu      sync.RWMutex // Add holds it shared, Close exclusively: no send on a closed channel
	closed  bool
	once    sync.Once
	dropped atomic.Int64
	written atomic.Int64
}

// New starts a Writer; Close flushes and stops it.
func New(cfg Config) *Writer {
	if cfg.Buffer <= 0 {
		cfg.Buffer = 8192
	}
	if cfg.Batch <= 0 || cfg.Batch > store.MaxAuditBatch {
		cfg.Batch = min(500, store.MaxAuditBatch)
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 100 * time.Millisecond
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Writer{cfg: cfg, ch: make(chan store.AuditRecord, cfg.Buffer), done: make(chan struct{})}
	go w.loop()
	return w
}

// Add queues a record. Details must hold no secret (ids and codes only).
func (w *Writer) Add(r store.AuditRecord) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.dropped.Add(1)
		return
	}
	select {
	case w.ch <- r:
		return
	default:
	}
	t := time.NewTimer(w.cfg.MaxWait)
	defer t.Stop()
	select {
	case w.ch <- r:
	case <-t.C:
		if w.dropped.Add(1) == 1 {
			w.cfg.Logger.Error("audit records dropped: the store does not keep up")
		}
	}
}

// Dropped counts records that could not be buffered in time.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Written counts records stored.
func (w *Writer) Written() int64 { return w.written.Load() }

// Close writes what is buffered and stops the writer.
func (w *Writer) Close() {
	w.once.Do(func() {
		w.mu.Lock()
		w.closed = true
		close(w.ch)
		w.mu.Unlock()
		<-w.done
	})
}

func (w *Writer) loop() {
	defer close(w.done)
	t := time.NewTicker(w.cfg.FlushEvery)
	defer t.Stop()
	batch := make([]store.AuditRecord, 0, w.cfg.Batch)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if err := w.cfg.Store.AppendAudit(context.Background(), batch); err != nil {
			w.dropped.Add(int64(len(batch)))
			w.cfg.Logger.Error("audit records not stored", "records", len(batch), "error", fault.From(err))
		} else {
			w.written.Add(int64(len(batch)))
		}
		batch = batch[:0]
	}
	for {
		select {
		case r, ok := <-w.ch:
			if !ok {
				flush()
				return
			}
			batch = append(batch, r)
			if len(batch) >= w.cfg.Batch {
				flush()
			}
		case <-t.C:
			flush()
		}
	}
}
