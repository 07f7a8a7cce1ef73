package engine

import (
	"maps"
	"sync"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// view is a data model guarded by a lock. Operations read it through op.Data
// while the engine writes step outputs; an attempt abandoned after its timeout
// may still be reading when the engine moves on, so reads and writes are locked
// (the values themselves are immutable and need no lock).
type view struct {
	mu sync.RWMutex
	m  *datamodel.Model
}

func newView(m *datamodel.Model) *view { return &view{m: m} }

// Get implements op.Data.
func (v *view) Get(p a2e.Path) (any, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.m.Get(p)
}

func (v *view) set(p a2e.Path, val any) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m.Set(p, val)
}

// top reads a top-level /workflow key.
func (v *view) top(key string) (any, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.m.Top(key)
}

// setTop writes a top-level key, or deletes it when !present.
func (v *view) setTop(key string, val any, present bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if present {
		v.m.SetTop(key, val)
	} else {
		v.m.Delete(key)
	}
}

// replace swaps the model for m (an execution over its data budget drops its data).
func (v *view) replace(m *datamodel.Model) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m = m
}

// overlay starts a view whose writes stay its own.
func (v *view) overlay() *view {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return newView(v.m.Overlay())
}

// copyTree returns a shallow copy of the /workflow tree and the input, safe to
// serialise while the model goes on changing (values are immutable; only the
// top-level map is written in place).
func (v *view) copyTree() (map[string]any, any) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	w, in := v.m.Snapshot()
	return maps.Clone(w), in
}
