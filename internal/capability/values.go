package capability

import (
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// Where a run keeps its values in the engine's data model: the capability's
// inputs are the execution input (/input), and each task's outputs object is
// written under one top-level key, by task id. Paths are built from segments,
// never parsed, so any task id is a key.
const tasksKey = "a2s_tasks"

var (
	inputRoot = a2e.Path{Root: a2e.RootInput}
	tasksRoot = a2e.Path{Root: a2e.RootWorkflow, Segments: []a2e.Segment{{Key: tasksKey}}}
)

// taskOutputPath is where task id's outputs are written.
func taskOutputPath(id string) *a2e.Path {
	return &a2e.Path{Root: a2e.RootWorkflow, Segments: []a2e.Segment{{Key: tasksKey}, {Key: id}}}
}

// state is what a mapping, template or condition reads: the inputs, the
// outputs of the tasks that ran, and the capability's metadata.
type state struct {
	inputs map[string]any
	tasks  map[string]any
	meta   map[string]any
	// outputs resolves outputs.X (a capability output's mapping); nil inside
	// tasks that run before the outputs exist.
	outputs func(name string) (any, bool)
}

// readState reads the inputs and task outputs from an execution's data.
func readState(d op.Data, meta map[string]any) *state {
	s := &state{meta: meta}
	if v, err := d.Get(inputRoot); err == nil {
		s.inputs, _ = v.(map[string]any)
	}
	if v, err := d.Get(tasksRoot); err == nil {
		s.tasks, _ = v.(map[string]any)
	}
	return s
}

// path resolves a reference; ok is false when nothing is there.
func (s *state) path(p *a2s.Path) (any, bool) {
	var root any
	switch p.Scope {
	case a2s.ScopeInputs:
		v, ok := s.inputs[p.Name]
		if !ok {
			return nil, false
		}
		root = v
	case a2s.ScopeTask:
		outs, ok := s.tasks[p.Task].(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok := outs[p.Name]
		if !ok {
			return nil, false
		}
		root = v
	case a2s.ScopeCapability:
		v, ok := s.meta[p.Name]
		if !ok {
			return nil, false
		}
		root = v
	case a2s.ScopeOutputs:
		if s.outputs == nil {
			return nil, false
		}
		v, ok := s.outputs(p.Name)
		if !ok {
			return nil, false
		}
		root = v
	default:
		return nil, false
	}
	return walk(root, p.Rest)
}

// walk follows keys and array indexes into v.
func walk(v any, rest []string) (any, bool) {
	for _, seg := range rest {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mapping evaluates a mapping: a path's value (null when absent), a
// template's text, or an object of mappings.
func (s *state) mapping(m *a2s.Mapping) any {
	switch m.Kind {
	case a2s.MappingPath:
		v, _ := s.path(m.Path)
		return v
	case a2s.MappingTemplate:
		return s.template(m.Template)
	case a2s.MappingObject:
		out := make(map[string]any, len(m.Fields))
		for _, f := range m.Fields {
			out[f.Name] = s.mapping(f.Mapping)
		}
		return out
	}
	return nil
}

// template renders {path} parts as text (strings as they are, other values
// as JSON; an absent value as empty).
func (s *state) template(parts []a2s.TemplatePart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Path == nil {
			b.WriteString(p.Text)
			continue
		}
		if v, ok := s.path(p.Path); ok {
			b.WriteString(text(v))
		}
	}
	return b.String()
}

// text writes a value into a template or prompt.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return string(mustJSON(v))
}

// condition evaluates `{path} op value` or a bare path (true when the value
// is present and neither null, false, 0 nor "").
func (s *state) condition(c *a2s.Condition) (bool, error) {
	left, ok := s.path(c.Left)
	if c.Op == "" {
		return ok && truthy(left), nil
	}
	var right any
	if c.Right != nil {
		if c.Right.Path != nil {
			right, _ = s.path(c.Right.Path)
		} else {
			right = c.Right.Value
		}
	}
	return compare(left, c.Op, right)
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// compare applies a comparison: == and != on any values (numbers by value),
// the orderings on two numbers or two strings.
func compare(a any, op string, b any) (bool, error) {
	switch op {
	case "==":
		return equal(a, b), nil
	case "!=":
		return !equal(a, b), nil
	}
	var c int
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false, nil
		}
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	case string:
		y, ok := b.(string)
		if !ok {
			return false, nil
		}
		c = strings.Compare(x, y)
	default:
		return false, nil
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unknown comparison %q", op)
}

func equal(a, b any) bool {
	if x, ok := a.(float64); ok {
		y, ok := b.(float64)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

// metadata is what capability.X reads.
func metadata(d *a2s.Document) map[string]any {
	m := map[string]any{
		"id": d.ID.Value, "name": d.Name.Value, "version": d.Version.Value,
		"description": d.Description.Value, "type": d.Type.Value,
	}
	if d.Name.Value == "" {
		m["name"] = d.ID.Value
	}
	return maps.Clone(m)
}
