package a2s

import (
	"net/url"
	"regexp"
	"strings"
)

// capabilityFields are the capability.* paths a document may read.
var capabilityFields = map[string]bool{"id": true, "name": true, "version": true, "description": true, "type": true, "a2s": true}

func (l *linter) tasks() {
	d := l.d
	first := map[string]Pos{}
	for i, t := range d.Tasks {
		path := indexPath("tasks", i)
		if t.ID.Set() {
			switch {
			case !isIdent(t.ID.Value):
				l.add(RuleIdentifier, t.ID.Pos, path+".id", "task id %q cannot be used in paths: use letters, digits, _ and -, starting with a letter or _", t.ID.Value)
			case reservedRoots[t.ID.Value]:
				l.add(RuleIdentifier, t.ID.Pos, path+".id", "task id %q is reserved: paths starting with %s mean something else", t.ID.Value, t.ID.Value)
			}
			if p, dup := first[t.ID.Value]; dup {
				l.add(RuleDuplicateTask, t.ID.Pos, path+".id", "task id %s is used twice (first at line %d)", t.ID.Value, p.Line)
			} else {
				first[t.ID.Value] = t.ID.Pos
			}
		}
		l.taskService(t, path)
		switch t.Type.Value {
		case TaskRequest:
			l.requestTask(t, path)
		case TaskPrompt:
			if t.Prompt == nil || !t.Prompt.Template.Set() {
				l.add(RuleTaskDefinition, t.Pos, path, "prompt task %s has no prompt template (prompt.template)", t.ID.Value)
			}
		case TaskCapability:
			switch {
			case !t.Capability.Set():
				l.add(RuleTaskDefinition, t.Pos, path, "capability task %s names no capability (definition.capability: DEPENDENCY)", t.ID.Value)
			case d.DependencyByName(strings.TrimPrefix(t.Capability.Value, "#/dependencies/")) == nil:
				l.add(RuleUnknownDep, t.Capability.Pos, path+".definition.capability", "capability %q is not a declared dependency", t.Capability.Value)
			}
		case TaskCondition:
			if t.node.Get("condition") == nil {
				l.add(RuleTaskDefinition, t.Pos, path, "condition task %s has no condition", t.ID.Value)
			}
		}
		if t.Prompt != nil && t.Prompt.Template.Set() {
			l.promptPlaceholders(t, path)
		}
	}
	for _, s := range d.Services {
		for _, name := range s.Tasks {
			if d.TaskByID(name.Value) == nil {
				l.add(RuleServiceTasks, name.Pos, joinPath("services", s.Host)+".tasks", "service %s lists task %s, which does not exist", s.Host, name.Value)
			}
		}
	}
}

func (l *linter) taskService(t *Task, path string) {
	if !t.Service.Set() {
		if t.Type.Value == TaskRequest {
			l.add(RuleRecommended, t.Pos, path, "request task %s names no service (requires_service): its credentials cannot be chosen", t.ID.Value)
		}
		return
	}
	if l.d.ServiceByHost(t.Service.Value) == nil {
		l.add(RuleUnknownService, t.Service.Pos, path+".requires_service", "service %q is not declared under services", t.Service.Value)
	}
}

func (l *linter) requestTask(t *Task, path string) {
	if !t.Request.Set() {
		l.add(RuleTaskDefinition, t.Pos, path, "request task %s has no definition.request", t.ID.Value)
		return
	}
	name, err := requestName(t.Request.Value)
	if err != nil {
		l.add(RuleRequest, t.Request.Pos, path+".definition.request", "%v", err)
		return
	}
	r := l.d.RequestByName(name)
	if r == nil {
		l.add(RuleRequest, t.Request.Pos, path+".definition.request", "request %s is not declared under requests", name)
		return
	}
	if r.Spec != nil && r.Operations != 1 {
		l.add(RuleRequest, t.Request.Pos, path+".definition.request",
			"request %s has %s: a request is one OpenAPI operation (one path, one method)", name, plural(r.Operations, "operation"))
	}
	if t.Service.Set() && r.Server.Set() && l.d.ServiceByHost(t.Service.Value) != nil {
		if u, err := url.Parse(r.Server.Value); err == nil && u.Host != "" && !strings.EqualFold(u.Hostname(), t.Service.Value) &&
			!strings.EqualFold(u.Host, t.Service.Value) {
			l.add(RuleServiceHost, r.Server.Pos, joinPath("requests", name)+".specification.servers[0].url",
				"request %s calls %s but task %s uses service %s", name, u.Host, t.ID.Value, t.Service.Value)
		}
	}
}

// placeholderRe finds {name} and {path} placeholders in prompt templates.
// Other braces are text: prompts often hold JSON.
var placeholderRe = regexp.MustCompile(`\{\s*([A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*|\[\d+\])*)\s*\}`)

// promptPlaceholders checks that {name} names an input of the task and that
// {path} is a valid reference.
func (l *linter) promptPlaceholders(t *Task, path string) {
	tpl := t.Prompt.Template
	for _, m := range placeholderRe.FindAllStringSubmatchIndex(tpl.Value, -1) {
		// {{name}} is an escaped literal.
		if m[0] > 0 && tpl.Value[m[0]-1] == '{' && m[1] < len(tpl.Value) && tpl.Value[m[1]] == '}' {
			continue
		}
		name := tpl.Value[m[2]:m[3]]
		if !strings.Contains(name, ".") {
			base, _, _ := strings.Cut(name, "[")
			if FindParam(t.Inputs, base) == nil {
				l.add(RulePromptInput, tpl.Pos, path+".prompt.template", "placeholder {%s} names no input of task %s", name, t.ID.Value)
			}
			continue
		}
		p, err := parsePath(name, tpl.Pos)
		if err != nil {
			l.add(RulePathSyntax, tpl.Pos, path+".prompt.template", "placeholder {%s}: %v", name, err)
			continue
		}
		l.checkPath(p, path+".prompt.template")
	}
}

// checkPath reports a path that names an undeclared task, input or output.
func (l *linter) checkPath(p *Path, where string) {
	d := l.d
	switch p.Scope {
	case ScopeInputs:
		if FindParam(d.Inputs, p.Name) == nil {
			l.add(RuleUnknownValueRef, p.Pos, where, "%s: the capability has no input %s", p.Raw, p.Name)
		}
	case ScopeOutputs:
		if FindParam(d.Outputs, p.Name) == nil {
			l.add(RuleUnknownValueRef, p.Pos, where, "%s: the capability has no output %s", p.Raw, p.Name)
		}
	case ScopeCapability:
		if !capabilityFields[p.Name] {
			l.add(RuleUnknownValueRef, p.Pos, where, "%s: capability.%s is not a metadata field (id, name, version, description, type, a2s)", p.Raw, p.Name)
		}
	case ScopeTask:
		t := d.TaskByID(p.Task)
		if t == nil {
			l.add(RuleUnknownTaskRef, p.Pos, where, "%s: there is no task %s", p.Raw, p.Task)
			return
		}
		// A capability task without declared outputs passes on its
		// capability's outputs, which this document does not know.
		if t.Type.Value == TaskCapability && len(t.Outputs) == 0 {
			return
		}
		if FindParam(t.Outputs, p.Name) == nil {
			l.add(RuleUnknownValueRef, p.Pos, where, "%s: task %s declares no output %s", p.Raw, p.Task, p.Name)
		}
	}
}

func (l *linter) checkMapping(m *Mapping, where string) {
	if m == nil {
		return
	}
	switch m.Kind {
	case MappingPath:
		l.checkPath(m.Path, where)
	case MappingTemplate:
		for _, part := range m.Template {
			if part.Path != nil {
				l.checkPath(part.Path, where)
			}
		}
	case MappingObject:
		for _, f := range m.Fields {
			l.checkMapping(f.Mapping, joinPath(where, f.Name))
		}
	}
}

func (l *linter) checkCondition(c *Condition, where string) {
	if c == nil {
		return
	}
	l.checkPath(c.Left, where)
	if c.Right != nil && c.Right.Path != nil {
		l.checkPath(c.Right.Path, where)
	}
}

// flow checks that the flow names existing tasks, each once, and reaches
// every task.
func (l *linter) flow() {
	d := l.d
	if d.Flow == nil {
		return
	}
	seen := map[string]Pos{}
	var walk func(steps []*Step, path string)
	var step func(s *Step, path string)
	step = func(s *Step, path string) {
		switch s.Kind {
		case StepTask:
			id := s.Task.Value
			if d.TaskByID(id) == nil {
				l.add(RuleFlowUnknownTask, s.Task.Pos, path+".task", "the flow runs task %s, which does not exist", id)
				return
			}
			if p, dup := seen[id]; dup {
				l.add(RuleFlowRepeatedTask, s.Task.Pos, path+".task", "task %s is already in the flow at line %d", id, p.Line)
				return
			}
			seen[id] = s.Task.Pos
		case StepSequence, StepParallel:
			walk(s.Steps, path+".steps")
		case StepCondition:
			l.checkCondition(s.If, path+".if")
			walk(s.Then, path+".then")
			walk(s.Else, path+".else")
		}
	}
	walk = func(steps []*Step, path string) {
		for i, s := range steps {
			step(s, indexPath(path, i))
		}
	}
	step(d.Flow, "flow")
	for i, t := range d.Tasks {
		if _, ok := seen[t.ID.Value]; !ok && t.ID.Set() {
			l.add(RuleUnreachedTask, t.ID.Pos, indexPath("tasks", i), "task %s is never reached: the flow does not run it", t.ID.Value)
		}
	}
}
