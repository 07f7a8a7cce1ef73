package a2s

import "strings"

// paramKind says where a param is declared, which decides what it may carry.
type paramKind int

const (
	paramInput   paramKind = iota // capability input: a schema
	paramOutput                   // capability output: schema, lifecycle, mapping
	paramTaskIn                   // task input: schema, $ref, mapping
	paramTaskOut                  // task output: schema, lifecycle
)

// schemaKeywords are the JSON Schema / OpenAPI keywords a param may carry.
var schemaKeywords = map[string]bool{
	"type": true, "format": true, "description": true, "title": true, "enum": true, "const": true,
	"items": true, "properties": true, "required": true, "additionalProperties": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true, "default": true, "example": true, "examples": true,
	"nullable": true, "oneOf": true, "anyOf": true, "allOf": true, "not": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "$ref": true,
}

// paramOnly are the A2S keys of a param beside schema keywords.
var paramOnly = map[string]bool{"mapping": true, "lifecycle": true}

// jsonTypes are the type names a param may use (OpenAPI's, plus integer).
var jsonTypes = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// isParam tells a param (it carries a keyword) from a group of params (an
// object of objects, like oauth2: {client_id: {...}}).
func isParam(n *Node) bool {
	if n.Kind != KindObject || len(n.Keys) == 0 {
		return true
	}
	for _, m := range n.Keys {
		if schemaKeywords[m.Name] || paramOnly[m.Name] || m.Value.Kind != KindObject {
			return true
		}
	}
	return false
}

// params reads an object of params. A list of one-key objects (the form of
// the spec's prompt example) is read too, with a warning.
func (z *norm) params(n *Node, path string, kind paramKind) []*Param {
	if n == nil || n.Kind == KindNull {
		return nil
	}
	if n.Kind == KindArray {
		z.add(RuleDialectForm, n.Pos, path, "%s is a list of one-key mappings; it is read as a mapping, which is the standard form", lastSegment(path))
		var out []*Param
		for i, it := range n.Items {
			if it.Kind != KindObject || len(it.Keys) != 1 {
				z.add(RuleType, it.Pos, indexPath(path, i), "each item of %s must be a mapping with one key", lastSegment(path))
				continue
			}
			m := it.Keys[0]
			out = append(out, z.param(m, joinPath(path, m.Name), kind))
		}
		return out
	}
	if n.Kind != KindObject {
		z.add(RuleType, n.Pos, path, "%s must be an object of parameters, not %s", lastSegment(path), n.describe())
		return nil
	}
	out := make([]*Param, 0, len(n.Keys))
	for _, m := range n.Keys {
		out = append(out, z.param(m, joinPath(path, m.Name), kind))
	}
	return out
}

func lastSegment(path string) string {
	if i := strings.LastIndexAny(path, ".]"); i >= 0 && i+1 < len(path) {
		return path[i+1:]
	}
	return path
}

func (z *norm) param(m *Member, path string, kind paramKind) *Param {
	p := &Param{Name: m.Name, Pos: m.Pos, Schema: m.Value}
	n := m.Value
	switch {
	case n.Kind == KindString:
		// Shorthand `name: string` (the spec's prompt format uses it).
		p.Type = Text{Value: n.Str, Pos: n.Pos}
		z.checkType(p.Type, path)
		return p
	case n.Kind == KindNull:
		return p
	case n.Kind != KindObject:
		z.add(RuleType, n.Pos, path, "parameter %s must be an object (type, description, ...), not %s", m.Name, n.describe())
		return p
	case !isParam(n):
		for _, c := range n.Keys {
			p.Fields = append(p.Fields, z.param(c, joinPath(path, c.Name), kind))
		}
		return p
	}
	f := &fields{z: z, n: n, path: path, used: map[string]bool{}}
	p.Type = f.text("type")
	z.checkType(p.Type, joinPath(path, "type"))
	p.Format = f.text("format")
	p.Description = f.text("description")
	if r := f.member("$ref"); r != nil {
		if r.Value.Kind != KindString {
			z.add(RuleType, r.Value.Pos, joinPath(path, "$ref"), "$ref must be a string, not %s", r.Value.describe())
		} else {
			p.Ref = &Ref{Pointer: r.Value.Str, Pos: r.Value.Pos}
		}
	}
	if mm := f.member("mapping"); mm != nil {
		if kind == paramOutput || kind == paramTaskIn {
			p.Mapping = z.mapping(mm.Value, joinPath(path, "mapping"), 0)
		} else {
			z.add(RuleUnknownKey, mm.Pos, joinPath(path, "mapping"), "mapping is for capability outputs and task inputs, not here")
		}
	}
	if lm := f.member("lifecycle"); lm != nil {
		p.Lifecycle = z.lifecycle(lm.Value, joinPath(path, "lifecycle"))
	}
	f.known = schemaKeywords
	f.finish("parameter " + m.Name)
	return p
}

func (z *norm) checkType(t Text, path string) {
	if !t.Set() {
		return
	}
	for _, j := range jsonTypes {
		if t.Value == j {
			return
		}
	}
	z.add(RuleEnum, t.Pos, path, "type %q is not one of %s", t.Value, strings.Join(jsonTypes, ", "))
}

// lifecycle reads a lifecycle, folding flow and execution into task.
func (z *norm) lifecycle(n *Node, path string) Text {
	if n.Kind != KindString {
		z.add(RuleType, n.Pos, path, "lifecycle must be a string, not %s", n.describe())
		return Text{}
	}
	switch n.Str {
	case LifecyclePersistent, LifecycleSession, LifecycleCapability, LifecycleTask:
		return Text{Value: n.Str, Pos: n.Pos}
	case "flow", "execution":
		z.add(RuleLifecycleAlias, n.Pos, path, "lifecycle %q is read as %q", n.Str, LifecycleTask)
		return Text{Value: LifecycleTask, Pos: n.Pos}
	}
	z.add(RuleLifecycle, n.Pos, path, "lifecycle %q is not one of persistent, session, capability, task", n.Str)
	return Text{}
}

// maxMappingDepth bounds nested object mappings (the tree is bounded too;
// this keeps messages short).
const maxMappingDepth = 16

// mapping reads a mapping: a path, a {..} template, or an object of mappings.
func (z *norm) mapping(n *Node, path string, depth int) *Mapping {
	switch n.Kind {
	case KindString:
		mp := &Mapping{Pos: n.Pos, Raw: n.Str}
		if isTemplate(n.Str) {
			mp.Kind = MappingTemplate
			parts, err := parseTemplate(n.Str, func(s string) (*Path, error) { return parsePath(s, n.Pos) })
			if err != nil {
				z.add(RuleTemplateSyntax, n.Pos, path, "template %q: %v", n.Str, err)
				return nil
			}
			mp.Template = parts
			return mp
		}
		mp.Kind = MappingPath
		p, err := parsePath(n.Str, n.Pos)
		if err != nil {
			z.add(RulePathSyntax, n.Pos, path, "mapping %v (text with values is a template: \"... {path} ...\")", err)
			return nil
		}
		mp.Path = p
		return mp
	case KindObject:
		if depth >= maxMappingDepth {
			z.add(RuleType, n.Pos, path, "object mapping nested deeper than %d levels", maxMappingDepth)
			return nil
		}
		mp := &Mapping{Kind: MappingObject, Pos: n.Pos}
		for _, m := range n.Keys {
			sub := z.mapping(m.Value, joinPath(path, m.Name), depth+1)
			if sub != nil {
				mp.Fields = append(mp.Fields, &MappingField{Name: m.Name, Pos: m.Pos, Mapping: sub})
			}
		}
		return mp
	}
	z.add(RuleType, n.Pos, path, "mapping must be a path, a template or an object of mappings, not %s", n.describe())
	return nil
}

// capabilityInputs reads the capability's inputs; inputs.services holds the
// per-service credential slots, kept apart (they come from the vault).
func (z *norm) capabilityInputs(n *Node) ([]*Param, []*ServiceCredential) {
	if n == nil || n.Kind != KindObject {
		return z.params(n, "inputs", paramInput), nil
	}
	var creds []*ServiceCredential
	rest := &Node{Kind: KindObject, Pos: n.Pos}
	for _, m := range n.Keys {
		if m.Name != "services" || m.Value.Kind != KindObject || !isGroup(m.Value) {
			rest.Keys = append(rest.Keys, m)
			continue
		}
		for _, hm := range m.Value.Keys {
			hpath := joinPath("inputs.services", hm.Name)
			hf := z.object(hm.Value, hpath, "service credentials")
			if hf == nil {
				continue
			}
			for _, sm := range hf.n.Keys {
				c := &ServiceCredential{Host: hm.Name, Pos: sm.Pos, Scheme: sm.Name}
				c.Fields = z.params(sm.Value, joinPath(hpath, sm.Name), paramInput)
				creds = append(creds, c)
			}
		}
	}
	return z.params(rest, "inputs", paramInput), creds
}

// isGroup: an object none of whose keys is a param keyword.
func isGroup(n *Node) bool { return n.Kind == KindObject && len(n.Keys) > 0 && !isParam(n) }
