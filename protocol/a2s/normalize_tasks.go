package a2s

import (
	"fmt"
	"strings"
)

var taskTypes = []string{TaskRequest, TaskAgentDecision, TaskCondition, TaskCapability, TaskPrompt}

func (z *norm) tasks(f *fields) []*Task {
	m := f.member("tasks")
	if m == nil || m.Value.Kind == KindNull {
		z.add(RuleRequired, f.n.Pos, "", "the document is missing required field tasks")
		return nil
	}
	items := f.list("tasks", "tasks")
	if m.Value.Kind == KindArray && len(items) == 0 {
		z.add(RuleRequired, m.Value.Pos, "tasks", "tasks is empty: a capability has at least one task")
	}
	out := make([]*Task, 0, len(items))
	for i, n := range items {
		if t := z.task(n, indexPath("tasks", i)); t != nil {
			out = append(out, t)
		}
	}
	return out
}

func (z *norm) task(n *Node, path string) *Task {
	f := z.object(n, path, "a task")
	if f == nil {
		return nil
	}
	t := &Task{node: n, Pos: n.Pos, ID: f.text("id"), Type: f.text("type"), Description: f.text("description")}
	f.require("id", t.ID, "a task")
	f.require("type", t.Type, "a task")
	f.enum("type", t.Type, taskTypes...)
	f.text("name")

	// requires_service (the spec) or service (RESOLUTIONS accepts both).
	rs, sv := f.text("requires_service"), f.text("service")
	switch {
	case rs.Set() && sv.Set():
		z.add(RuleDialectConflict, sv.Pos, joinPath(path, "service"), "the task gives both requires_service and service; keep one")
		t.Service = rs
	case rs.Set():
		t.Service = rs
	default:
		t.Service = sv
	}
	if c := f.node("condition"); c != nil && c.Kind != KindNull {
		t.Condition = z.condition(c, joinPath(path, "condition"))
	}

	t.Inputs = z.taskParams(f, path, "inputs", "input", paramTaskIn)
	t.Outputs = z.taskParams(f, path, "outputs", "output", paramTaskOut)

	if df := z.object(f.node("definition"), joinPath(path, "definition"), "definition"); df != nil {
		dpath := joinPath(path, "definition")
		t.Request = df.text("request")
		t.Capability = df.text("capability")
		if lg := df.text("logic"); lg.Set() {
			lines, errs := parseLogic(lg.Value, lg.Pos)
			t.Logic = lines
			for _, err := range errs {
				z.add(RuleLogicSyntax, lg.Pos, joinPath(dpath, "logic"), "%v", err)
			}
		}
		if pr := df.node("prompt"); pr != nil && pr.Kind != KindNull {
			t.Prompt = z.prompt(pr, joinPath(dpath, "prompt"))
		}
		df.finish("definition")
	}
	if pr := f.node("prompt"); pr != nil && pr.Kind != KindNull {
		if t.Prompt != nil {
			z.add(RuleDialectConflict, pr.Pos, joinPath(path, "prompt"), "the task has a prompt both here and in definition.prompt; keep one")
		} else {
			t.Prompt = z.prompt(pr, joinPath(path, "prompt"))
		}
	}
	if eh := z.object(f.node("error_handling"), joinPath(path, "error_handling"), "error_handling"); eh != nil {
		t.OnFailure = z.onFailure(eh.member("on_failure"), joinPath(path, "error_handling.on_failure"))
		eh.finish("error_handling")
	}
	f.finish("task " + t.ID.Value)
	return t
}

// taskParams reads inputs (or outputs), also accepting the singular input
// (output) of the spec's prompt example with a warning.
func (z *norm) taskParams(f *fields, path, key, alias string, kind paramKind) []*Param {
	main, other := f.member(key), f.member(alias)
	if other != nil {
		if main != nil {
			z.add(RuleDialectConflict, other.Pos, joinPath(path, alias), "the task has both %s and %s; keep %s", key, alias, key)
		} else {
			z.add(RuleDialectForm, other.Pos, joinPath(path, alias), "%s is read as %s", alias, key)
			main, key = other, alias
		}
	}
	if main == nil {
		return nil
	}
	return z.params(main.Value, joinPath(path, key), kind)
}

func (z *norm) condition(n *Node, path string) *Condition {
	if n.Kind != KindString {
		z.add(RuleType, n.Pos, path, "a condition must be a string like \"{task.outputs.x} == true\", not %s", n.describe())
		return nil
	}
	c, err := parseCondition(n.Str, n.Pos)
	if err != nil {
		z.add(RuleConditionSyntax, n.Pos, path, "%v", err)
		return nil
	}
	c.Left.Pos = n.Pos
	if c.Right != nil && c.Right.Path != nil {
		c.Right.Path.Pos = n.Pos
	}
	return c
}

func (z *norm) prompt(n *Node, path string) *Prompt {
	if n.Kind == KindString {
		return &Prompt{Pos: n.Pos, Template: Text{Value: n.Str, Pos: n.Pos}}
	}
	f := z.object(n, path, "a prompt")
	if f == nil {
		return nil
	}
	p := &Prompt{Pos: n.Pos, Template: f.text("template"), Format: f.node("format")}
	f.require("template", p.Template, "a prompt")
	if p.Format != nil && p.Format.Kind != KindObject && p.Format.Kind != KindNull {
		z.add(RuleType, p.Format.Pos, joinPath(path, "format"), "format must be an object of fields, not %s", p.Format.describe())
	}
	f.finish("a prompt")
	return p
}

func (z *norm) onFailure(m *Member, path string) *OnFailure {
	if m == nil || m.Value.Kind == KindNull {
		return nil
	}
	n := m.Value
	o := &OnFailure{Pos: n.Pos}
	if n.Kind == KindString { // shorthand on_failure: continue
		o.Action = Text{Value: n.Str, Pos: n.Pos}
	} else {
		f := z.object(n, path, "on_failure")
		if f == nil {
			return nil
		}
		o.Action, o.Message = f.text("action"), f.text("message")
		f.require("action", o.Action, "on_failure")
		f.finish("on_failure")
	}
	if o.Action.Set() && o.Action.Value != ActionContinue && o.Action.Value != ActionAbort {
		z.add(RuleOnFailure, o.Action.Pos, joinPath(path, "action"), "on_failure action %q is not continue or abort", o.Action.Value)
	}
	return o
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (z *norm) requests(n *Node) []*Request {
	f := z.object(n, "requests", "requests")
	if f == nil {
		return nil
	}
	var out []*Request
	for _, m := range f.n.Keys {
		path := joinPath("requests", m.Name)
		g := z.object(m.Value, path, "a request")
		if g == nil {
			continue
		}
		r := &Request{Name: m.Name, Pos: m.Pos, Format: g.text("format"), Spec: g.node("specification")}
		g.require("format", r.Format, "a request")
		if r.Format.Set() && !strings.EqualFold(r.Format.Value, "openapi") {
			z.add(RuleEnum, r.Format.Pos, joinPath(path, "format"), "request format %q is not OpenAPI", r.Format.Value)
		}
		if r.Spec == nil {
			z.add(RuleRequired, m.Value.Pos, path, "a request is missing required field specification")
		} else if sf := z.object(r.Spec, joinPath(path, "specification"), "specification"); sf != nil {
			z.operation(r, sf, joinPath(path, "specification"))
		}
		g.finish("a request")
		out = append(out, r)
	}
	return out
}

// operation finds the request's operation: a request is one endpoint and
// one method. The OpenAPI text is not checked further here.
func (z *norm) operation(r *Request, f *fields, path string) {
	r.OpenAPI = f.version("openapi")
	f.require("openapi", r.OpenAPI, "an OpenAPI specification")
	for i, s := range f.list("servers", "servers") {
		if sf := z.object(s, indexPath(joinPath(path, "servers"), i), "a server"); sf != nil && i == 0 {
			r.Server = sf.text("url")
		}
	}
	pf := z.object(f.node("paths"), joinPath(path, "paths"), "paths")
	if pf == nil {
		return
	}
	for _, pm := range pf.n.Keys {
		if pm.Value.Kind != KindObject {
			continue
		}
		for _, om := range pm.Value.Keys {
			if !isMethod(om.Name) {
				continue
			}
			r.Operations++
			if r.Operations == 1 {
				r.Path = Text{Value: pm.Name, Pos: pm.Pos}
				r.Method = Text{Value: strings.ToLower(om.Name), Pos: om.Pos}
				r.Operation = om.Value
			}
		}
	}
}

func isMethod(s string) bool {
	for _, m := range httpMethods {
		if strings.EqualFold(s, m) {
			return true
		}
	}
	return false
}

// requestName returns NAME of a "#/requests/NAME" pointer.
func requestName(ptr string) (string, error) {
	name, ok := strings.CutPrefix(ptr, "#/requests/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("request %q is not a pointer #/requests/NAME", ptr)
	}
	return unescapePointer(name), nil
}
