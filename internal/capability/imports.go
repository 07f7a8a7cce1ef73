package capability

import (
	"context"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// importOp runs a capability task: the imported capability, compiled with
// the run's environment and credentials, on its task inputs; its outputs are
// the task's. RESOLUTIONS: atomic capabilities import nothing and aggregates
// import only atomic ones, so imports never nest and never cycle.
type importOp struct {
	task   *a2s.Task
	meta   map[string]any
	parent *Compiled
}

func (o *importOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	id := o.task.ID.Value
	p := o.parent
	if p.Doc.Type.Value == a2s.TypeAtomic {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "task %q: an atomic capability may not import capabilities", id).WithOp(id)
	}
	dep := p.Doc.DependencyByName(o.task.Capability.Value)
	if dep == nil {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "task %q imports %q, which is not among the dependencies", id, o.task.Capability.Value).WithOp(id)
	}
	if p.opts.Imports == nil || p.opts.Nested == nil {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "task %q: this run cannot import capabilities", id).WithOp(id)
	}
	doc, err := p.opts.Imports.Import(ctx, dep)
	if err != nil {
		return nil, err
	}
	if doc.Type.Value != a2s.TypeAtomic {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "task %q imports %s, which is %s; capabilities may import only atomic ones",
			id, doc.ID.Value, doc.Type.Value).WithOp(id)
	}
	opts := p.opts
	opts.Stubs, opts.Imports = nil, nil
	sub, err := Compile(doc, opts)
	if err != nil {
		return nil, err
	}
	inputs := readState(rc.Data, o.meta).taskInputs(o.task)
	res := p.opts.Nested.Run(ctx, sub.Plan, engine.RunOptions{Account: rc.Account, SessionID: rc.SessionID, Input: inputs})
	switch res.Status {
	case engine.StatusSuccess, engine.StatusPartial:
		return sub.Outputs(inputs, res.Results), nil
	case engine.StatusWaiting:
		return nil, fault.Typed(fault.Invalid, fault.ExecutionError, "task %q: the imported capability %s waits for a decision, which imports cannot do yet", id, doc.ID.Value).WithOp(id)
	}
	msg := "it failed"
	if len(res.Errors) > 0 {
		msg = res.Errors[0].Message
	}
	return nil, fault.Typed(fault.Upstream, fault.ExecutionError, "task %q: the imported capability %s: %s", id, doc.ID.Value, msg).WithOp(id)
}
