package a2s

// maxFlowDepth bounds nested steps; deeper flows are refused with a message
// rather than walked.
const maxFlowDepth = 32

// flow reads the top-level flow: {type: sequence|parallel, steps: [...]} or
// {type: condition, if, then, else}. A bare list of steps is read as a
// sequence, with a warning.
func (z *norm) flow(n *Node, path string) *Step {
	if n.Kind == KindArray {
		z.add(RuleDialectForm, n.Pos, path, "the flow is a list of steps; it is read as {type: sequence, steps: [...]}")
		return &Step{Kind: StepSequence, Pos: n.Pos, Steps: z.steps(n, path, 1)}
	}
	return z.typedFlow(n, path, 0)
}

func (z *norm) typedFlow(n *Node, path string, depth int) *Step {
	f := z.object(n, path, "a flow")
	if f == nil {
		return nil
	}
	typ := f.text("type")
	s := &Step{Pos: n.Pos}
	switch typ.Value {
	case StepSequence, StepParallel:
		s.Kind = typ.Value
		steps := f.member("steps")
		if steps == nil {
			z.add(RuleRequired, n.Pos, path, "a %s flow is missing required field steps", typ.Value)
		} else {
			s.Steps = z.steps(steps.Value, joinPath(path, "steps"), depth+1)
		}
	case StepCondition:
		z.conditionStep(s, f, path, depth)
	case "":
		f.require("type", typ, "a flow")
	default:
		f.enum("type", typ, StepSequence, StepParallel, StepCondition)
	}
	f.finish("a flow")
	if s.Kind == "" {
		return nil
	}
	return s
}

func (z *norm) conditionStep(s *Step, f *fields, path string, depth int) {
	s.Kind = StepCondition
	if c := f.node("if"); c != nil {
		s.If = z.condition(c, joinPath(path, "if"))
	} else {
		z.add(RuleRequired, f.n.Pos, path, "a condition is missing required field if")
	}
	if t := f.node("then"); t != nil {
		s.Then = z.steps(t, joinPath(path, "then"), depth+1)
	} else {
		z.add(RuleRequired, f.n.Pos, path, "a condition is missing required field then")
	}
	if e := f.node("else"); e != nil {
		s.Else = z.steps(e, joinPath(path, "else"), depth+1)
	}
}

func (z *norm) steps(n *Node, path string, depth int) []*Step {
	if depth > maxFlowDepth {
		z.add(RuleType, n.Pos, path, "the flow is nested deeper than %d levels", maxFlowDepth)
		return nil
	}
	if n.Kind != KindArray {
		z.add(RuleType, n.Pos, path, "steps must be a list, not %s", n.describe())
		return nil
	}
	out := make([]*Step, 0, len(n.Items))
	for i, it := range n.Items {
		if s := z.step(it, indexPath(path, i), depth); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// step reads one step: {task: ID}, {condition: {if, then, else}},
// {parallel: [...]}, {sequence: [...]}, or a nested {type: ...} flow.
func (z *norm) step(n *Node, path string, depth int) *Step {
	f := z.object(n, path, "a step")
	if f == nil {
		return nil
	}
	var s *Step
	for _, key := range []string{"task", "condition", "parallel", "sequence", "type"} {
		m := f.n.Member(key)
		if m == nil {
			continue
		}
		if s != nil {
			z.add(RuleType, m.Pos, joinPath(path, key), "a step has one of task, condition, parallel, sequence; %s is one too many", key)
			f.used[key] = true
			continue
		}
		switch key {
		case "task":
			if t := f.text("task"); t.Set() {
				s = &Step{Kind: StepTask, Pos: n.Pos, Task: t}
			}
		case "condition":
			f.used[key] = true
			if g := z.object(m.Value, joinPath(path, key), "a condition step"); g != nil {
				s = &Step{Pos: m.Value.Pos}
				z.conditionStep(s, g, joinPath(path, key), depth)
				g.finish("a condition step")
			}
		case "parallel", "sequence":
			f.used[key] = true
			s = &Step{Kind: key, Pos: n.Pos, Steps: z.steps(m.Value, joinPath(path, key), depth+1)}
		case "type":
			// A nested flow object: it is read (and its keys checked) whole.
			return z.typedFlow(n, path, depth)
		}
	}
	if s == nil && len(f.used) == 0 {
		z.add(RuleRequired, n.Pos, path, "a step needs one of task, condition, parallel, sequence")
	}
	f.finish("a step")
	return s
}
