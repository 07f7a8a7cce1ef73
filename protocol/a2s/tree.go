package a2s

import (
	"fmt"
	"strings"
)

// Pos is a place in a source document: 1-based line and column (columns count
// characters, not bytes). The zero Pos means "unknown".
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Known reports whether p names a place.
func (p Pos) Known() bool { return p.Line > 0 }

// Kind is the JSON type of a Node.
type Kind uint8

// The kinds of a Node: the JSON data model. YAML documents are read into the
// same model (a YAML value with no JSON form is an error).
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Node is one value of a parsed document, with where it was written. The tree
// is the document exactly as written: keys in source order, no dialect folded.
// A YAML alias shares the anchored node, so a tree may be a DAG; the parser
// bounds its expanded size (Limits.MaxNodes).
type Node struct {
	Kind Kind
	Pos  Pos
	Bool bool
	// Num is the value of a number (always a finite IEEE double).
	Num float64
	// Str is a string's value, or a number's source text (e.g. "1.0", "0x1F").
	Str   string
	Items []*Node
	Keys  []*Member
}

// Member is one key of an object with where the key was written.
type Member struct {
	Name  string
	Pos   Pos
	Value *Node
}

// Get returns the value of key in an object, or nil.
func (n *Node) Get(key string) *Node {
	if m := n.Member(key); m != nil {
		return m.Value
	}
	return nil
}

// Member returns the member named key of an object, or nil.
func (n *Node) Member(key string) *Member {
	if n == nil || n.Kind != KindObject {
		return nil
	}
	for _, m := range n.Keys {
		if m.Name == key {
			return m
		}
	}
	return nil
}

// Interface returns the node as plain Go values: nil, bool, float64, string,
// []any, map[string]any.
func (n *Node) Interface() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case KindBool:
		return n.Bool
	case KindNumber:
		return n.Num
	case KindString:
		return n.Str
	case KindArray:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Interface()
		}
		return out
	case KindObject:
		out := make(map[string]any, len(n.Keys))
		for _, m := range n.Keys {
			out[m.Name] = m.Value.Interface()
		}
		return out
	}
	return nil
}

// describe names a node's kind for messages, with a short view of scalars.
func (n *Node) describe() string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case KindString:
		s := n.Str
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("string %q", s)
	case KindNumber:
		return "number " + n.Str
	case KindBool:
		return fmt.Sprintf("boolean %t", n.Bool)
	}
	return n.Kind.String()
}

// scalarText is a scalar's text as a string (numbers as written); "" and false
// for non-scalars.
func (n *Node) scalarText() (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.Kind {
	case KindString, KindNumber:
		return n.Str, true
	case KindBool:
		if n.Bool {
			return "true", true
		}
		return "false", true
	case KindNull:
		return "null", true
	}
	return "", false
}

// joinPath appends a key to a dotted document path, quoting keys that hold
// dots, and an index as [i].
func joinPath(base, key string) string {
	if strings.ContainsAny(key, ".[]\" ") || key == "" {
		key = fmt.Sprintf("[%q]", key)
		return base + key
	}
	if base == "" {
		return key
	}
	return base + "." + key
}

func indexPath(base string, i int) string { return fmt.Sprintf("%s[%d]", base, i) }

// MarshalText writes a position as "line:col".
func (p Pos) MarshalText() ([]byte, error) { return []byte(p.String()), nil }
