package a2s

import (
	"fmt"
	"strings"
)

// norm collects the problems found while normalizing a tree.
type norm struct {
	file  string
	diags []Diagnostic
}

func (z *norm) add(rule string, pos Pos, path, format string, args ...any) {
	z.diags = append(z.diags, Diagnostic{
		Rule: rule, Severity: ruleSeverity[rule], File: z.file,
		Line: pos.Line, Col: pos.Col, Path: path, Message: fmt.Sprintf(format, args...),
	})
}

// fields reads the members of one object, remembering which keys were used so
// that the rest can be reported as unknown.
type fields struct {
	z    *norm
	n    *Node
	path string
	used map[string]bool
	// known keys are accepted without being read (a param's schema
	// keywords).
	known map[string]bool
}

// object starts reading n as an object; it reports a type problem and returns
// nil when n is something else. A missing n (nil) returns nil silently.
func (z *norm) object(n *Node, path, what string) *fields {
	if n == nil {
		return nil
	}
	if n.Kind != KindObject {
		z.add(RuleType, n.Pos, path, "%s must be an object, not %s", what, n.describe())
		return nil
	}
	return &fields{z: z, n: n, path: path, used: map[string]bool{}}
}

func (f *fields) sub(key string) string { return joinPath(f.path, key) }

// member returns key's member (nil when absent) and marks it used.
func (f *fields) member(key string) *Member {
	f.used[key] = true
	return f.n.Member(key)
}

func (f *fields) node(key string) *Node {
	if m := f.member(key); m != nil {
		return m.Value
	}
	return nil
}

// text reads a string field; null counts as absent.
func (f *fields) text(key string) Text {
	n := f.node(key)
	if n == nil || n.Kind == KindNull {
		return Text{}
	}
	if n.Kind != KindString {
		f.z.add(RuleType, n.Pos, f.sub(key), "%s must be a string, not %s", key, n.describe())
		return Text{}
	}
	return Text{Value: n.Str, Pos: n.Pos}
}

// version reads a version-like field: YAML reads `version: 1.0` as a number,
// which keeps its text so the version check can say what is wrong with it.
func (f *fields) version(key string) Text {
	n := f.node(key)
	if n == nil || n.Kind == KindNull {
		return Text{}
	}
	if n.Kind == KindNumber {
		return Text{Value: n.Str, Pos: n.Pos}
	}
	return f.text(key)
}

// texts reads a list of strings; a single string is a type problem.
func (f *fields) texts(key string) []Text {
	n := f.node(key)
	if n == nil || n.Kind == KindNull {
		return nil
	}
	if n.Kind != KindArray {
		f.z.add(RuleType, n.Pos, f.sub(key), "%s must be a list of strings, not %s", key, n.describe())
		return nil
	}
	out := make([]Text, 0, len(n.Items))
	for i, it := range n.Items {
		if it.Kind != KindString {
			f.z.add(RuleType, it.Pos, indexPath(f.sub(key), i), "%s must hold strings, not %s", key, it.describe())
			continue
		}
		out = append(out, Text{Value: it.Str, Pos: it.Pos})
	}
	return out
}

// list reads an array field; anything else is a type problem.
func (f *fields) list(key, what string) []*Node {
	n := f.node(key)
	if n == nil || n.Kind == KindNull {
		return nil
	}
	if n.Kind != KindArray {
		f.z.add(RuleType, n.Pos, f.sub(key), "%s must be a list, not %s", what, n.describe())
		return nil
	}
	return n.Items
}

// require reports key missing when t is unset.
func (f *fields) require(key string, t Text, what string) {
	if !t.Set() && f.n.Get(key) == nil {
		f.z.add(RuleRequired, f.n.Pos, f.path, "%s is missing required field %s", what, key)
	}
}

// enum reports t when it is set and not one of allowed.
func (f *fields) enum(key string, t Text, allowed ...string) {
	if !t.Set() {
		return
	}
	for _, a := range allowed {
		if t.Value == a {
			return
		}
	}
	f.z.add(RuleEnum, t.Pos, f.sub(key), "%s %q is not one of %s", key, t.Value, strings.Join(allowed, ", "))
}

// finish reports every key not used as unknown. Keys starting with x- are
// extensions: tools may add them and no reader reports them.
func (f *fields) finish(what string) {
	if f == nil {
		return
	}
	for _, m := range f.n.Keys {
		if f.used[m.Name] || f.known[m.Name] || strings.HasPrefix(m.Name, "x-") {
			continue
		}
		f.z.add(RuleUnknownKey, m.Pos, f.sub(m.Name), "unknown key %q in %s", m.Name, what)
	}
}
