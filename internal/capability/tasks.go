package capability

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// taskInputs resolves a task's inputs (see param).
func (s *state) taskInputs(t *a2s.Task) map[string]any {
	out := map[string]any{}
	for _, p := range t.Inputs {
		if v, ok := s.param(p); ok {
			out[p.Name] = v
		}
	}
	return out
}

// param is the value of one task input: its mapping; the value its $ref
// binds; for a group, the object of its fields; else the capability input of
// the same name. A $ref into #/inputs/services/... is a credential slot,
// filled from the vault by the request that needs it and never a value.
func (s *state) param(p *a2s.Param) (any, bool) {
	switch {
	case p.Mapping != nil:
		return s.mapping(p.Mapping), true
	case p.Ref != nil:
		return s.ref(p.Ref.Pointer, p.Name)
	case len(p.Fields) > 0:
		obj := map[string]any{}
		for _, f := range p.Fields {
			if v, ok := s.param(f); ok {
				obj[f.Name] = v
			}
		}
		if len(obj) == 0 {
			return nil, false
		}
		return obj, true
	}
	v, ok := s.inputs[p.Name]
	return v, ok
}

// ref binds a $ref: #/inputs/X... is input X (and below); #/schemas/... gives
// a type only, so the value is the capability input of the param's name.
func (s *state) ref(ptr, name string) (any, bool) {
	segs := pointerSegments(ptr)
	if len(segs) >= 2 && segs[0] == "inputs" {
		if segs[1] == "services" {
			return nil, false
		}
		v, ok := s.inputs[segs[1]]
		if !ok {
			return nil, false
		}
		return walk(v, segs[2:])
	}
	v, ok := s.inputs[name]
	return v, ok
}

// isCredentialRef reports whether a param (or every field of a group) is a
// credential slot.
func isCredentialRef(p *a2s.Param) bool {
	if p.Ref != nil {
		segs := pointerSegments(p.Ref.Pointer)
		return len(segs) >= 2 && segs[0] == "inputs" && segs[1] == "services"
	}
	if len(p.Fields) == 0 {
		return false
	}
	for _, f := range p.Fields {
		if !isCredentialRef(f) {
			return false
		}
	}
	return true
}

func pointerSegments(ptr string) []string {
	ptr = strings.TrimPrefix(strings.TrimPrefix(ptr, "#"), "/")
	if ptr == "" {
		return nil
	}
	segs := strings.Split(ptr, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

// --- control steps of the flow ---

// gateOp runs its task only when the task's condition holds.
type gateOp struct {
	task string
	cond *a2s.Condition
	meta map[string]any
}

func (g *gateOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	ok, err := readState(rc.Data, g.meta).condition(g.cond)
	if err != nil {
		return nil, conditionFault(g.task, g.cond, err)
	}
	if ok {
		return op.Branch{Name: "ifTrue", Ops: []string{g.task}}, nil
	}
	return op.Branch{Name: "none"}, nil
}

// ifOp is a flow condition: then or else.
type ifOp struct {
	cond       *a2s.Condition
	then, els  []string
	meta       map[string]any
	positionOf string
}

func (o *ifOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	ok, err := readState(rc.Data, o.meta).condition(o.cond)
	if err != nil {
		return nil, conditionFault(o.positionOf, o.cond, err)
	}
	if ok {
		return op.Branch{Name: "ifTrue", Ops: o.then}, nil
	}
	if len(o.els) > 0 {
		return op.Branch{Name: "ifFalse", Ops: o.els}, nil
	}
	return op.Branch{Name: "none"}, nil
}

// parallelOp runs its branches at the same time.
type parallelOp struct{ branches [][]string }

func (p *parallelOp) Run(context.Context, *op.RunContext) (any, error) {
	return op.Fork{Branches: p.branches}, nil
}

func conditionFault(where string, c *a2s.Condition, err error) error {
	return fault.Typed(fault.Invalid, fault.DataError, "condition %q of %s: %v", c.Raw, where, err).WithOp(where)
}

// --- tasks ---

// stubOp answers a task with given outputs (sluice cap test).
type stubOp struct{ outputs map[string]any }

func (s *stubOp) Run(context.Context, *op.RunContext) (any, error) { return s.outputs, nil }

// failOp fails with its error when it runs.
type failOp struct{ err error }

func (f *failOp) Run(context.Context, *op.RunContext) (any, error) { return nil, f.err }

// conditionTaskOp is a task of type condition: its output is whether its
// condition holds, under `result` and under its one declared output.
type conditionTaskOp struct {
	task *a2s.Task
	meta map[string]any
}

func (c *conditionTaskOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	if c.task.Condition == nil {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "condition task %q has no condition", c.task.ID.Value).WithOp(c.task.ID.Value)
	}
	ok, err := readState(rc.Data, c.meta).condition(c.task.Condition)
	if err != nil {
		return nil, conditionFault(c.task.ID.Value, c.task.Condition, err)
	}
	out := map[string]any{"result": ok}
	if len(c.task.Outputs) == 1 {
		out[c.task.Outputs[0].Name] = ok
	}
	return out, nil
}

// logicOp evaluates an agent_decision's logic lines in order; each line's
// name is an output and a variable of the lines after it.
type logicOp struct {
	task  *a2s.Task
	meta  map[string]any
	lines []logicLine
}

type logicLine struct {
	name string
	expr *op.Expression
}

func newLogicOp(t *a2s.Task, meta map[string]any, lim op.Limits) (*logicOp, error) {
	vars := make([]string, 0, len(t.Inputs)+len(t.Logic))
	for _, p := range t.Inputs {
		vars = append(vars, p.Name)
	}
	o := &logicOp{task: t, meta: meta}
	for i, l := range t.Logic {
		e, err := op.CompileWithVars(l.Expr, fmt.Sprintf("tasks.%s.definition.logic[%d]", t.ID.Value, i), vars, lim)
		if err != nil {
			return nil, err
		}
		o.lines = append(o.lines, logicLine{name: l.Name, expr: e})
		vars = append(vars, l.Name)
	}
	return o, nil
}

func (l *logicOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	env := readState(rc.Data, l.meta).taskInputs(l.task)
	out := map[string]any{}
	for _, line := range l.lines {
		v, err := line.expr.Eval(ctx, env)
		if err != nil {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "logic of task %q, %s = %s: %v",
				l.task.ID.Value, line.name, line.expr.Source(), err).WithOp(l.task.ID.Value)
		}
		env[line.name] = v
		out[line.name] = v
	}
	return out, nil
}

// askOp hands a task back to the calling agent: a prompt task's rendered
// template, or an agent_decision without logic. The run waits until the
// agent answers (Pending); the answer, checked against Expected, is the
// task's outputs.
type askOp struct {
	task     *a2s.Task
	meta     map[string]any
	expected map[string]any // JSON Schema of the answer
}

// Pending is what a waiting run asks of the agent.
type Pending struct {
	Task     string         `json:"task"`
	Type     string         `json:"type"` // prompt | agent_decision
	Prompt   string         `json:"prompt,omitempty"`
	Inputs   map[string]any `json:"inputs"`
	Expected map[string]any `json:"expected_output"`
}

func (a *askOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	if len(rc.Answer) > 0 {
		var answer any
		if err := json.Unmarshal(rc.Answer, &answer); err != nil {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "the answer to task %q is not JSON", a.task.ID.Value).WithOp(a.task.ID.Value)
		}
		if err := checkAnswer(a.expected, answer); err != nil {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "the answer to task %q: %v", a.task.ID.Value, err).WithOp(a.task.ID.Value)
		}
		return answer, nil
	}
	inputs := readState(rc.Data, a.meta).taskInputs(a.task)
	p := &Pending{Task: a.task.ID.Value, Type: a.task.Type.Value, Inputs: inputs, Expected: a.expected}
	if a.task.Prompt != nil {
		p.Prompt = renderPrompt(a.task.Prompt.Template.Value, inputs)
	}
	return nil, &op.Suspend{Reason: "task " + a.task.ID.Value + " waits for the agent's answer", Request: p}
}

// renderPrompt fills {name} with the task input of that name; braces around
// anything else are left as written.
func renderPrompt(tpl string, inputs map[string]any) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			b.WriteString(tpl)
			return b.String()
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			b.WriteString(tpl)
			return b.String()
		}
		name := strings.TrimSpace(tpl[i+1 : i+j])
		b.WriteString(tpl[:i])
		if v, ok := inputs[name]; ok {
			b.WriteString(text(v))
		} else {
			b.WriteString(tpl[i : i+j+1])
		}
		tpl = tpl[i+j+1:]
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}
