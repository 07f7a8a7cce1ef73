package a2s

// Data-flow order: a task that reads TASK.outputs.X of a task that has not
// finished before it starts gets null (or races a parallel sibling). The flow
// is laid out on a clock: a task takes one tick, a sequence runs its steps one
// after another, parallel steps and the branches of a condition start
// together and end with the longest. Without a flow, tasks run in document
// order. A reference is in order when the referenced task ends no later than
// the reader starts.

type span struct{ start, end int }

func (l *linter) schedule() map[string]span {
	d := l.d
	at := map[string]span{}
	if d.Flow == nil {
		for i, t := range d.Tasks {
			if _, seen := at[t.ID.Value]; !seen {
				at[t.ID.Value] = span{i, i + 1}
			}
		}
		return at
	}
	var place func(s *Step, t int) int
	seq := func(steps []*Step, t int) int {
		for _, s := range steps {
			t = place(s, t)
		}
		return t
	}
	place = func(s *Step, t int) int {
		switch s.Kind {
		case StepTask:
			if _, seen := at[s.Task.Value]; !seen {
				at[s.Task.Value] = span{t, t + 1}
			}
			return t + 1
		case StepSequence:
			return seq(s.Steps, t)
		case StepParallel:
			end := t
			for _, c := range s.Steps {
				end = max(end, place(c, t))
			}
			return end
		case StepCondition:
			return max(seq(s.Then, t), seq(s.Else, t))
		}
		return t
	}
	place(d.Flow, 0)
	return at
}

// order reports references to tasks that do not finish before the reader.
func (l *linter) order() {
	at := l.schedule()
	check := func(reader string, start int, p *Path, where string) {
		if p == nil || p.Scope != ScopeTask {
			return
		}
		src, ok := at[p.Task]
		if !ok || src.end <= start {
			return // unknown tasks and tasks outside the flow are reported elsewhere
		}
		switch {
		case p.Task == reader:
			l.add(RuleFlowOrder, p.Pos, where, "%s: task %s reads its own output", p.Raw, reader)
		case src.start <= start:
			l.add(RuleFlowOrder, p.Pos, where, "%s: task %s runs in parallel with %s, so the value may not be there yet", p.Raw, p.Task, reader)
		default:
			l.add(RuleFlowOrder, p.Pos, where, "%s: task %s runs after %s, so the value is not there yet", p.Raw, p.Task, reader)
		}
	}
	for i, t := range l.d.Tasks {
		self, ok := at[t.ID.Value]
		if !ok {
			continue
		}
		path := indexPath("tasks", i)
		for _, ref := range taskReads(t) {
			check(t.ID.Value, self.start, ref.path, path+ref.where)
		}
	}
	// Conditions of the flow are read when the condition step starts.
	var walk func(steps []*Step, t int, path string) int
	var step func(s *Step, t int, path string) int
	walk = func(steps []*Step, t int, path string) int {
		for i, s := range steps {
			t = step(s, t, indexPath(path, i))
		}
		return t
	}
	step = func(s *Step, t int, path string) int {
		switch s.Kind {
		case StepTask:
			return t + 1
		case StepSequence:
			return walk(s.Steps, t, path+".steps")
		case StepParallel:
			end := t
			for i, c := range s.Steps {
				end = max(end, step(c, t, indexPath(path+".steps", i)))
			}
			return end
		case StepCondition:
			if s.If != nil {
				check("the condition", t, s.If.Left, path+".if")
				if s.If.Right != nil {
					check("the condition", t, s.If.Right.Path, path+".if")
				}
			}
			return max(walk(s.Then, t, path+".then"), walk(s.Else, t, path+".else"))
		}
		return t
	}
	if l.d.Flow != nil {
		step(l.d.Flow, 0, "flow")
	}
}

type taskRead struct {
	path  *Path
	where string
}

// taskReads lists the paths a task reads before it runs: its condition, its
// input mappings and the paths of its prompt.
func taskReads(t *Task) []taskRead {
	var out []taskRead
	if t.Condition != nil {
		out = append(out, taskRead{t.Condition.Left, ".condition"})
		if t.Condition.Right != nil && t.Condition.Right.Path != nil {
			out = append(out, taskRead{t.Condition.Right.Path, ".condition"})
		}
	}
	var mapping func(m *Mapping, where string)
	mapping = func(m *Mapping, where string) {
		if m == nil {
			return
		}
		switch m.Kind {
		case MappingPath:
			out = append(out, taskRead{m.Path, where})
		case MappingTemplate:
			for _, p := range m.Template {
				if p.Path != nil {
					out = append(out, taskRead{p.Path, where})
				}
			}
		case MappingObject:
			for _, f := range m.Fields {
				mapping(f.Mapping, joinPath(where, f.Name))
			}
		}
	}
	var params func(ps []*Param, base string)
	params = func(ps []*Param, base string) {
		for _, p := range ps {
			pp := joinPath(base, p.Name)
			mapping(p.Mapping, pp+".mapping")
			params(p.Fields, pp)
		}
	}
	params(t.Inputs, ".inputs")
	if t.Prompt != nil && t.Prompt.Template.Set() {
		for _, m := range placeholderRe.FindAllStringSubmatch(t.Prompt.Template.Value, -1) {
			if p, err := parsePath(m[1], t.Prompt.Template.Pos); err == nil {
				out = append(out, taskRead{p, ".prompt.template"})
			}
		}
	}
	return out
}
