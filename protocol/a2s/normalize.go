package a2s

// Normalize reads a parsed tree into a Document. It never fails: what it
// cannot read it reports (Lint returns those reports with the rest) and
// leaves out of the model.
func Normalize(tree *Node, file string) *Document {
	z := &norm{file: file}
	d := &Document{File: file, Tree: tree}
	f := z.object(tree, "", "a capability document")
	if f == nil {
		d.diags = z.diags
		return d
	}
	d.A2S = f.version("a2s")
	d.ID = f.text("id")
	d.Name = f.text("name")
	d.Description = f.text("description")
	d.Version = f.version("version")
	d.Type = f.text("type")
	d.Checksum = f.text("checksum")
	d.SourceURL = f.text("source_url")
	f.text("license")
	f.texts("tags")
	for _, req := range []struct {
		key string
		t   Text
	}{{"a2s", d.A2S}, {"id", d.ID}, {"version", d.Version}, {"type", d.Type}} {
		f.require(req.key, req.t, "the document")
	}
	f.enum("type", d.Type, TypeAtomic, TypeAggregate)
	if !d.Description.Set() {
		z.add(RuleRecommended, tree.Pos, "", "the document has no description: agents choose capabilities by it")
	}
	for i, a := range f.list("authors", "authors") {
		d.Authors = append(d.Authors, z.author(a, indexPath("authors", i)))
	}

	z.security(f, d)
	d.Registries = z.registries(f)
	d.Dependencies = z.dependencies(f)
	d.Services = z.services(f)
	d.Inputs, d.Credentials = z.capabilityInputs(f.node("inputs"))
	d.Outputs = z.params(f.node("outputs"), "outputs", paramOutput)
	d.Tasks = z.tasks(f)
	if n := f.node("flow"); n != nil && n.Kind != KindNull {
		d.Flow = z.flow(n, "flow")
	}
	d.Requests = z.requests(f.node("requests"))
	d.Schemas = z.schemas(f.node("schemas"))
	d.Examples = z.examples(f)
	f.finish("the document")
	d.diags = z.diags
	return d
}

func (z *norm) author(n *Node, path string) Author {
	a := Author{Pos: n.Pos}
	f := z.object(n, path, "an author")
	if f == nil {
		return a
	}
	a.Name, a.Email, a.URL = f.text("name"), f.text("email"), f.text("url")
	f.require("name", a.Name, "an author")
	f.finish("an author")
	return a
}

// security reads audit and permissions, at the top level or under security:
// (RESOLUTIONS accepts both). Given in both places, the top level is kept and
// the conflict reported.
func (z *norm) security(f *fields, d *Document) {
	top := map[string]*Member{"audit": f.member("audit"), "permissions": f.member("permissions")}
	var sec *fields
	if n := f.node("security"); n != nil {
		sec = z.object(n, "security", "security")
	}
	pick := func(key string) (*Node, string) {
		m := top[key]
		if sec != nil {
			if sm := sec.member(key); sm != nil {
				if m != nil {
					z.add(RuleDialectConflict, sm.Pos, "security."+key,
						"%s is given both at the top level (line %d) and under security; keep one", key, m.Pos.Line)
					return m.Value, key
				}
				return sm.Value, "security." + key
			}
		}
		if m != nil {
			return m.Value, key
		}
		return nil, key
	}
	if n, path := pick("audit"); n != nil && n.Kind != KindNull {
		d.Audit = z.audit(n, path)
	} else {
		z.add(RuleRecommended, f.n.Pos, "", "the document has no audit section: always say its audit status")
	}
	if n, path := pick("permissions"); n != nil && n.Kind != KindNull {
		d.Permissions = z.permissions(n, path)
	} else {
		z.add(RuleRecommended, f.n.Pos, "", "the document has no permissions section: say the least level it needs")
	}
	sec.finish("security")
}

func (z *norm) audit(n *Node, path string) *Audit {
	f := z.object(n, path, "audit")
	if f == nil {
		return nil
	}
	a := &Audit{Pos: n.Pos, Status: f.text("status"), Provider: f.text("provider"), ID: f.text("id"), URL: f.text("url")}
	f.require("status", a.Status, "audit")
	f.enum("status", a.Status, "audited", "unaudited", "in-progress")
	f.finish("audit")
	return a
}

func (z *norm) permissions(n *Node, path string) *Permissions {
	f := z.object(n, path, "permissions")
	if f == nil {
		return nil
	}
	p := &Permissions{Pos: n.Pos, Level: f.text("level"), Description: f.text("description"), Capabilities: f.texts("capabilities")}
	f.require("level", p.Level, "permissions")
	f.enum("level", p.Level, "basic", "elevated", "admin")
	f.finish("permissions")
	return p
}

func (z *norm) registries(f *fields) []Registry {
	rf := z.object(f.node("registries"), "registries", "registries")
	if rf == nil {
		return nil
	}
	var out []Registry
	for _, m := range rf.n.Keys {
		r := Registry{Name: m.Name, Pos: m.Pos, URL: rf.text(m.Name)}
		out = append(out, r)
	}
	return out
}

// dependencies reads dependencies: and imports: (the same thing under the
// name the issue uses; read with a warning).
func (z *norm) dependencies(f *fields) []*Dependency {
	var out []*Dependency
	seen := map[string]Pos{}
	for _, key := range []string{"dependencies", "imports"} {
		m := f.member(key)
		if m == nil || m.Value.Kind == KindNull {
			continue
		}
		if key == "imports" {
			z.add(RuleDialectForm, m.Pos, key, "imports is read as dependencies; the spec's name is dependencies")
		}
		df := z.object(m.Value, key, key)
		if df == nil {
			continue
		}
		for _, dm := range df.n.Keys {
			path := joinPath(key, dm.Name)
			if p, dup := seen[dm.Name]; dup {
				z.add(RuleDialectConflict, dm.Pos, path, "dependency %q is declared twice (first at line %d)", dm.Name, p.Line)
				continue
			}
			seen[dm.Name] = dm.Pos
			g := z.object(dm.Value, path, "a dependency")
			if g == nil {
				continue
			}
			dep := &Dependency{Name: dm.Name, Pos: dm.Pos, Namespace: g.text("namespace"), ID: g.text("id"),
				Version: g.version("version"), Checksum: g.text("checksum"), Registry: g.text("registry"), Type: g.text("type")}
			g.require("id", dep.ID, "a dependency")
			g.require("version", dep.Version, "a dependency")
			g.enum("type", dep.Type, TypeAtomic, TypeAggregate)
			g.finish("a dependency")
			out = append(out, dep)
		}
	}
	return out
}

func (z *norm) services(f *fields) []*Service {
	sf := z.object(f.node("services"), "services", "services")
	if sf == nil {
		return nil
	}
	var out []*Service
	for _, m := range sf.n.Keys {
		path := joinPath("services", m.Name)
		g := z.object(m.Value, path, "a service")
		s := &Service{Host: m.Name, Pos: m.Pos}
		out = append(out, s)
		if g == nil {
			continue
		}
		s.Type = g.text("type")
		s.Tasks = g.texts("tasks")
		if o := z.object(g.node("oauth2"), joinPath(path, "oauth2"), "oauth2"); o != nil {
			s.OAuth2 = &OAuth2{Pos: o.n.Pos, Read: o.texts("read"), Write: o.texts("write"), TokenURL: o.text("token_url"), Scopes: o.texts("scopes")}
			o.finish("oauth2")
		}
		g.finish("a service")
	}
	return out
}

func (z *norm) schemas(n *Node) []Schema {
	f := z.object(n, "schemas", "schemas")
	if f == nil {
		return nil
	}
	out := make([]Schema, 0, len(f.n.Keys))
	for _, m := range f.n.Keys {
		out = append(out, Schema{Name: m.Name, Pos: m.Pos, Node: m.Value})
	}
	return out
}

func (z *norm) examples(f *fields) []*Example {
	var out []*Example
	for i, n := range f.list("examples", "examples") {
		path := indexPath("examples", i)
		g := z.object(n, path, "an example")
		if g == nil {
			continue
		}
		ex := &Example{Pos: n.Pos, Description: g.text("description"), Inputs: g.node("inputs"), ExpectedOutputs: g.node("expected_outputs")}
		for _, key := range []string{"inputs", "expected_outputs"} {
			if v := g.n.Get(key); v != nil && v.Kind != KindObject && v.Kind != KindNull {
				z.add(RuleType, v.Pos, joinPath(path, key), "%s must be an object, not %s", key, v.describe())
			}
		}
		if tf := z.object(g.node("tasks"), joinPath(path, "tasks"), "example tasks"); tf != nil {
			for _, m := range tf.n.Keys {
				tpath := joinPath(joinPath(path, "tasks"), m.Name)
				et := &ExampleTask{ID: m.Name, Pos: m.Pos}
				if h := z.object(m.Value, tpath, "an example task"); h != nil {
					et.Outputs = h.node("outputs")
					if et.Outputs != nil && et.Outputs.Kind != KindObject {
						z.add(RuleType, et.Outputs.Pos, joinPath(tpath, "outputs"), "outputs must be an object, not %s", et.Outputs.describe())
						et.Outputs = nil
					}
					h.finish("an example task")
				}
				ex.Tasks = append(ex.Tasks, et)
			}
		}
		g.finish("an example")
		out = append(out, ex)
	}
	return out
}
