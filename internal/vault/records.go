package vault

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Record is one credential as it is stored: sealed. Nothing in it is secret on
// its own; the value is recoverable only with the master key named by KeyID,
// and only under the same ID, Type and Hosts (the AEAD's additional data).
type Record struct {
	ID          string
	Type        string
	Description string
	Hosts       []string // canonical (policy.NormalizeCredentialHosts); empty: unbound
	KeyID       string   // the master key it was sealed with
	Nonce       []byte   // 12 random bytes, fresh for every sealing
	Ciphertext  []byte   // AES-256-GCM output, tag included
	Created     time.Time
	Updated     time.Time
}

// Swap replaces the stored record ID, if its nonce is still OldNonce, with New
// (the same credential sealed under another key). A record written since it
// was read has a new nonce and is left alone: the writer sealed it under the
// key that was current then.
type Swap struct {
	ID       string
	OldNonce []byte
	New      Record
}

// Records keeps sealed records. The store implements it over its database; the
// lead adapts it. Implementations return copies the caller may keep.
type Records interface {
	// Put inserts the record or replaces the one with the same ID.
	Put(ctx context.Context, r Record) error
	// Get returns the record and whether it exists.
	Get(ctx context.Context, id string) (Record, bool, error)
	// List returns every record, ordered by ID.
	List(ctx context.Context) ([]Record, error)
	// Delete removes the record and reports whether it existed.
	Delete(ctx context.Context, id string) (bool, error)
	// Reseal applies every swap whose OldNonce still matches, all or none (one
	// transaction where the backend has them), and returns how many it applied.
	Reseal(ctx context.Context, swaps []Swap) (int, error)
}

// MemoryRecords is Records in memory, for tests and for `sluice run`.
type MemoryRecords struct {
	mu   sync.Mutex
	recs map[string]Record
}

// NewMemoryRecords makes an empty MemoryRecords.
func NewMemoryRecords() *MemoryRecords { return &MemoryRecords{recs: map[string]Record{}} }

var _ Records = (*MemoryRecords)(nil)

// Put stores a copy of r.
func (m *MemoryRecords) Put(ctx context.Context, r Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[r.ID] = r.clone()
	return nil
}

// Get returns a copy of the record.
func (m *MemoryRecords) Get(ctx context.Context, id string) (Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[id]
	return r.clone(), ok, nil
}

// List returns copies of every record, ordered by ID.
func (m *MemoryRecords) List(ctx context.Context) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Record, 0, len(m.recs))
	for _, r := range m.recs {
		out = append(out, r.clone())
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Delete removes the record.
func (m *MemoryRecords) Delete(ctx context.Context, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.recs[id]
	delete(m.recs, id)
	return ok, nil
}

// Reseal applies the swaps whose nonce still matches, under one lock.
func (m *MemoryRecords) Reseal(ctx context.Context, swaps []Swap) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range swaps {
		cur, ok := m.recs[s.ID]
		if !ok || !bytes.Equal(cur.Nonce, s.OldNonce) {
			continue
		}
		m.recs[s.ID] = s.New.clone()
		n++
	}
	return n, nil
}

func (r Record) clone() Record {
	r.Nonce = bytes.Clone(r.Nonce)
	r.Ciphertext = bytes.Clone(r.Ciphertext)
	r.Hosts = slices.Clone(r.Hosts)
	return r
}
