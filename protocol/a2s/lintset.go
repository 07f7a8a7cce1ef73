package a2s

import "strings"

// LintSet lints documents together: each one alone, then what only the set
// shows. A dependency is found in the set by its id (documents carry no
// namespace; the registry adds it). Across the set it reports two documents
// with the same id and version, an aggregate importing a document that is
// not atomic, and cycles of imports.
func LintSet(docs []*Document) []Diagnostic {
	var out []Diagnostic
	byID := map[string][]*Document{}
	first := map[string]*Document{}
	for _, d := range docs {
		if d == nil {
			continue
		}
		out = append(out, Lint(d)...)
		if !d.ID.Set() {
			continue
		}
		key := d.ID.Value + "@" + d.Version.Value
		if f, dup := first[key]; dup {
			z := &norm{file: d.File}
			z.add(RuleDuplicateID, d.ID.Pos, "id", "%s version %s is also defined in %s:%d", d.ID.Value, d.Version.Value, displayFile(f.File), f.ID.Pos.Line)
			out = append(out, z.diags...)
		} else {
			first[key] = d
		}
		byID[d.ID.Value] = append(byID[d.ID.Value], d)
	}
	out = append(out, setImports(docs, byID)...)
	sortDiagnostics(out)
	return out
}

func displayFile(f string) string {
	if f == "" {
		return "<input>"
	}
	return f
}

// resolveDep returns the documents of the set a dependency may mean: those
// with its id whose version satisfies its constraint (all of them when the
// constraint does not parse).
func resolveDep(dep *Dependency, byID map[string][]*Document) []*Document {
	cands := byID[dep.ID.Value]
	c, err := ParseConstraint(dep.Version.Value)
	if err != nil || !dep.Version.Set() {
		return cands
	}
	var out []*Document
	for _, d := range cands {
		if ok, err := c.CheckString(d.Version.Value); err == nil && ok {
			out = append(out, d)
		}
	}
	return out
}

func setImports(docs []*Document, byID map[string][]*Document) []Diagnostic {
	z := &norm{}
	edges := map[*Document][]*Document{}
	depOf := map[[2]*Document]*Dependency{}
	for _, d := range docs {
		if d == nil {
			continue
		}
		for _, dep := range d.Dependencies {
			for _, target := range resolveDep(dep, byID) {
				edges[d] = append(edges[d], target)
				depOf[[2]*Document{d, target}] = dep
				if d.Type.Value == TypeAggregate && target.Type.Value != TypeAtomic && target.Type.Set() && dep.Type.Value != TypeAggregate {
					z.file = d.File
					z.add(RuleAggregateImports, dep.Pos, "dependencies."+dep.Name,
						"aggregate capability %s imports %s, which is %s (%s): aggregates import atomic capabilities only",
						d.ID.Value, target.ID.Value, target.Type.Value, displayFile(target.File))
				}
			}
		}
	}
	// Cycles: a depth-first search; each cycle is reported once, at the
	// dependency that closes it.
	const (
		white = iota
		grey
		black
	)
	color := map[*Document]int{}
	var stack []*Document
	var visit func(d *Document)
	visit = func(d *Document) {
		color[d] = grey
		stack = append(stack, d)
		for _, t := range edges[d] {
			switch color[t] {
			case white:
				visit(t)
			case grey:
				var names []string
				for i := len(stack) - 1; i >= 0; i-- {
					names = append([]string{stack[i].ID.Value}, names...)
					if stack[i] == t {
						break
					}
				}
				names = append(names, t.ID.Value)
				dep := depOf[[2]*Document{d, t}]
				z.file = d.File
				z.add(RuleImportCycle, dep.Pos, "dependencies."+dep.Name, "import cycle: %s", strings.Join(names, " -> "))
			}
		}
		stack = stack[:len(stack)-1]
		color[d] = black
	}
	for _, d := range docs {
		if d != nil && color[d] == white {
			visit(d)
		}
	}
	return z.diags
}
