package a2s

import "strings"

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
	l.pointers(d.Tree, d.Tree, "", 0)
}

// pointers resolves every $ref of the tree. Refs inside an OpenAPI
// specification point into that specification, so they resolve against it.
func (l *linter) pointers(root, n *Node, path string, depth int) {
	if n == nil || depth > 2*DefaultMaxDepth {
		return
	}
	switch n.Kind {
	case KindArray:
		for i, it := range n.Items {
			l.pointers(root, it, indexPath(path, i), depth+1)
		}
	case KindObject:
		for _, m := range n.Keys {
			sub := joinPath(path, m.Name)
			if m.Name == "$ref" && m.Value.Kind == KindString {
				l.pointer(root, m.Value, sub)
				continue
			}
			r := root
			if depth == 2 && strings.HasPrefix(path, "requests.") && m.Name == "specification" {
				r = m.Value
			}
			l.pointers(r, m.Value, sub, depth+1)
		}
	}
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
