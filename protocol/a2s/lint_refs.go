package a2s

import (
	"strconv"
	"strings"
)

// refs checks every mapping, condition and $ref of the document.
func (l *linter) refs() {
	d := l.d
	for i, t := range d.Tasks {
		path := indexPath("tasks", i)
		l.checkCondition(t.Condition, path+".condition")
		var walk func(ps []*Param, base string)
		walk = func(ps []*Param, base string) {
			for _, p := range ps {
				pp := joinPath(base, p.Name)
				l.checkMapping(p.Mapping, pp+".mapping")
				if p.Ref != nil && strings.HasPrefix(p.Ref.Pointer, "#") && !strings.HasPrefix(p.Ref.Pointer, "#/inputs/") && !strings.HasPrefix(p.Ref.Pointer, "#/schemas/") {
					l.add(RuleRefTarget, p.Ref.Pos, pp+".$ref", "$ref %q of a task input should point into #/inputs/ (a value) or #/schemas/ (a type)", p.Ref.Pointer)
				}
				walk(p.Fields, pp)
			}
		}
		walk(t.Inputs, path+".inputs")
	}
	for _, o := range d.Outputs {
		l.checkMapping(o.Mapping, joinPath("outputs", o.Name)+".mapping")
	}
	l.pointers(d.Tree, d.Tree, make([]string, 0, 16), 0)
}

// pointers resolves every $ref of the tree. Refs inside an OpenAPI
// specification point into that specification, so they resolve against it.
// The path is kept as a stack of segments and joined only for a report.
func (l *linter) pointers(root, n *Node, path []string, depth int) {
	if n == nil || depth > 2*DefaultMaxDepth {
		return
	}
	switch n.Kind {
	case KindArray:
		for i, it := range n.Items {
			l.pointers(root, it, append(path, "["+strconv.Itoa(i)+"]"), depth+1)
		}
	case KindObject:
		for _, m := range n.Keys {
			if m.Name == "$ref" && m.Value.Kind == KindString {
				l.pointer(root, m.Value, joinSegments(append(path, m.Name)))
				continue
			}
			r := root
			if depth == 2 && path[0] == "requests" && m.Name == "specification" {
				r = m.Value
			}
			l.pointers(r, m.Value, append(path, m.Name), depth+1)
		}
	}
}

func joinSegments(segs []string) string {
	out := ""
	for _, s := range segs {
		if strings.HasPrefix(s, "[") {
			out += s
		} else {
			out = joinPath(out, s)
		}
	}
	return out
}

func (l *linter) pointer(root, ref *Node, path string) {
	ptr := ref.Str
	if !strings.HasPrefix(ptr, "#") {
		l.add(RuleRefTarget, ref.Pos, path, "$ref %q is not a local pointer (#/...): it is not checked and not resolved", ptr)
		return
	}
	if _, err := resolvePointer(root, ptr); err != nil {
		l.add(RuleRefUnresolved, ref.Pos, path, "%v", err)
	}
}
