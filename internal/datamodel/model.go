// Package datamodel is the data an execution works on: the /workflow tree that
// operations write and the /input object the caller gave. Values are plain JSON
// values (map[string]any, []any, string, float64, bool, nil) and are treated as
// immutable: Set copies every container along the path it writes, so a value read
// by one operation is never changed under it and overlays share safely.
package datamodel

import (
	"fmt"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Model holds one execution's data.
type Model struct {
	workflow map[string]any
	input    any
}

// New makes a model over the caller's input (nil when none was given).
func New(input any) *Model {
	return &Model{workflow: map[string]any{}, input: input}
}

// FromSnapshot rebuilds a model from Snapshot's output.
func FromSnapshot(workflow map[string]any, input any) *Model {
	if workflow == nil {
		workflow = map[string]any{}
	}
	return &Model{workflow: workflow, input: input}
}

// Snapshot returns the workflow tree and the input; callers must not modify them.
func (m *Model) Snapshot() (workflow map[string]any, input any) { return m.workflow, m.input }

// Overlay returns a model that starts as m and takes writes of its own. Loop
// iterations that run concurrently each write to an overlay.
func (m *Model) Overlay() *Model {
	w := make(map[string]any, len(m.workflow)+2)
	for k, v := range m.workflow {
		w[k] = v
	}
	return &Model{workflow: w, input: m.input}
}

// GetString parses path and reads it.
func (m *Model) GetString(path string) (any, error) {
	p, err := a2e.ParsePath(path)
	if err != nil {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "%s", err.Error()).WithDetail("path", path)
	}
	return m.Get(p)
}

// Get reads p; a missing path is a DataError naming it.
func (m *Model) Get(p a2e.Path) (any, error) {
	var root any = m.workflow
	if p.Root == a2e.RootInput {
		root = m.input
	}
	v, ok, at := Lookup(root, p.Segments)
	if !ok {
		return nil, missing(p, at)
	}
	return v, nil
}

// Has reports whether p is present.
func (m *Model) Has(p a2e.Path) bool {
	_, err := m.Get(p)
	return err == nil
}

func missing(p a2e.Path, at int) *fault.Error {
	found := a2e.Path{Root: p.Root, Segments: p.Segments[:at]}
	msg := fmt.Sprintf("path %s does not exist", p)
	if at > 0 || p.Root == a2e.RootInput {
		msg = fmt.Sprintf("path %s does not exist (%s exists, but has no %s)", p, found, describe(p.Segments[at]))
	}
	suggestion := "Check that an earlier operation writes this path (its outputPath)"
	if p.Root == a2e.RootInput {
		suggestion = "Give it in the execute request's input (sluice run --input)"
	}
	return fault.Typed(fault.Invalid, fault.DataError, "%s", msg).
		WithDetail("path", p.String()).
		WithSuggestions(suggestion)
}

func describe(s a2e.Segment) string {
	if s.IsIndex {
		return fmt.Sprintf("index %d", s.Index)
	}
	return fmt.Sprintf("key %q", s.Key)
}

// Lookup walks segs from v. It returns the value, whether it exists, and when it
// does not, how many segments did resolve.
func Lookup(v any, segs []a2e.Segment) (any, bool, int) {
	for i, s := range segs {
		switch c := v.(type) {
		case map[string]any:
			if s.IsIndex {
				return nil, false, i
			}
			next, ok := c[s.Key]
			if !ok {
				return nil, false, i
			}
			v = next
		case []any:
			if !s.IsIndex || s.Index >= len(c) {
				return nil, false, i
			}
			v = c[s.Index]
		default:
			return nil, false, i
		}
	}
	return v, true, len(segs)
}

// Set writes v at p, creating objects along the way. Writing under /input, through
// a scalar, or past the end of an array is a DataError.
func (m *Model) Set(p a2e.Path, v any) error {
	if p.Root != a2e.RootWorkflow || len(p.Segments) == 0 || p.Segments[0].IsIndex {
		return fault.Typed(fault.Invalid, fault.DataError, "cannot write to %s: only /workflow/<key> paths are writable", p).
			WithDetail("path", p.String())
	}
	first := p.Segments[0].Key
	if len(p.Segments) == 1 {
		m.workflow[first] = v
		return nil
	}
	nv, err := setIn(m.workflow[first], p.Segments[1:], v, p, 1)
	if err != nil {
		return err
	}
	m.workflow[first] = nv
	return nil
}

// setIn returns a copy of cur with v written at segs; containers are copied, never changed.
func setIn(cur any, segs []a2e.Segment, v any, p a2e.Path, depth int) (any, error) {
	if len(segs) == 0 {
		return v, nil
	}
	s := segs[0]
	if s.IsIndex {
		arr, ok := cur.([]any)
		if !ok || s.Index >= len(arr) {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "cannot write %s: %s is not an array with index %d",
				p, a2e.Path{Root: p.Root, Segments: p.Segments[:depth]}, s.Index).WithDetail("path", p.String())
		}
		nv, err := setIn(arr[s.Index], segs[1:], v, p, depth+1)
		if err != nil {
			return nil, err
		}
		cp := append([]any(nil), arr...)
		cp[s.Index] = nv
		return cp, nil
	}
	var obj map[string]any
	switch c := cur.(type) {
	case nil:
		obj = map[string]any{}
	case map[string]any:
		obj = make(map[string]any, len(c)+1)
		for k, x := range c {
			obj[k] = x
		}
	default:
		return nil, fault.Typed(fault.Invalid, fault.DataError, "cannot write %s: %s is not an object",
			p, a2e.Path{Root: p.Root, Segments: p.Segments[:depth]}).WithDetail("path", p.String())
	}
	nv, err := setIn(obj[s.Key], segs[1:], v, p, depth+1)
	if err != nil {
		return nil, err
	}
	obj[s.Key] = nv
	return obj, nil
}

// Delete removes the top-level key of p's first segment (used to restore loop
// variables that did not exist before the loop).
func (m *Model) Delete(key string) { delete(m.workflow, key) }

// Top returns the value of a top-level /workflow key and whether it exists.
func (m *Model) Top(key string) (any, bool) { v, ok := m.workflow[key]; return v, ok }

// SetTop writes a top-level /workflow key.
func (m *Model) SetTop(key string, v any) { m.workflow[key] = v }
