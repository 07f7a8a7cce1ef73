package audit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/audit"
	"github.com/sluicehq/sluice/internal/store"
)

// memAudit is a store.Audit that keeps batches; it can be made slow or failing.
type memAudit struct {
	mu      sync.Mutex
	recs    []store.AuditRecord
	batches int
	block   chan struct{}
	fail    bool
}

func (m *memAudit) AppendAudit(_ context.Context, recs []store.AuditRecord) error {
	if m.block != nil {
		<-m.block
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errors.New("disk full")
	}
	m.recs = append(m.recs, recs...)
	m.batches++
	return nil
}

func (m *memAudit) QueryAudit(context.Context, store.AuditQuery) ([]store.AuditRecord, string, error) {
	return nil, "", nil
}
func (m *memAudit) PruneAudit(context.Context, time.Time) (int64, error) { return 0, nil }

func (m *memAudit) count() (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.recs), m.batches
}

func TestWriterBatchesAndFlushesOnClose(t *testing.T) {
	st := &memAudit{}
	w := audit.New(audit.Config{Store: st, Batch: 100, FlushEvery: time.Hour})
	for i := range 250 {
		w.Add(store.AuditRecord{RequestID: string(rune('a' + i%26)), Method: "workflow.execute", Decision: "allow"})
	}
	w.Close()
	n, batches := st.count()
	if n != 250 || batches != 3 || w.Written() != 250 || w.Dropped() != 0 {
		t.Fatalf("stored %d in %d batches (written %d, dropped %d); want 250 in 3", n, batches, w.Written(), w.Dropped())
	}
	w.Add(store.AuditRecord{Method: "late"}) // after Close: counted, never a panic
	if w.Dropped() != 1 {
		t.Fatalf("a record after Close was not counted as dropped")
	}
}

func TestWriterFlushesOnTimer(t *testing.T) {
	st := &memAudit{}
	w := audit.New(audit.Config{Store: st, FlushEvery: 5 * time.Millisecond})
	defer w.Close()
	w.Add(store.AuditRecord{Method: "m"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if n, _ := st.count(); n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a buffered record was not written by the timer")
		}
		time.Sleep(time.Millisecond)
	}
}

// A store that does not keep up makes callers wait, then drop and count.
func TestWriterBackpressureThenDrop(t *testing.T) {
	st := &memAudit{block: make(chan struct{})}
	w := audit.New(audit.Config{Store: st, Buffer: 2, Batch: 1, MaxWait: 20 * time.Millisecond})
	for range 10 {
		w.Add(store.AuditRecord{Method: "m"})
	}
	if w.Dropped() == 0 {
		t.Fatal("a full buffer behind a stuck store dropped nothing")
	}
	close(st.block)
	w.Close()
	n, _ := st.count()
	if int64(n)+w.Dropped() != 10 {
		t.Fatalf("stored %d + dropped %d != 10 added", n, w.Dropped())
	}
}

func TestWriterCountsFailedBatches(t *testing.T) {
	st := &memAudit{fail: true}
	w := audit.New(audit.Config{Store: st})
	w.Add(store.AuditRecord{Method: "m"})
	w.Close()
	if w.Dropped() != 1 || w.Written() != 0 {
		t.Fatalf("failed write: written %d dropped %d", w.Written(), w.Dropped())
	}
}
