// Package capability runs A2S capability documents (protocol/a2s) on the
// engine: a document compiles into an engine plan whose steps are its tasks
// and whose control steps are its flow, so a capability run is checkpointed,
// resumed after a restart, bounded in time and retried exactly like an A2E
// workflow, and its requests go through ApiCall (egress, vault, retry, cache).
//
// Layout of a run in the engine's data model: the capability's inputs are the
// execution input (/input); task T's outputs object is written at
// /workflow/a2s_tasks/T. Steps:
//
//   - each task is a step with its own id, its on_failure (continue or abort,
//     the default) as the step's OnError;
//   - a task with a condition is reached through a control step "$if/T" that
//     runs it or not;
//   - a parallel flow is a fork step "$par/N" whose branches run at once;
//   - a condition flow is a branch step "$cond/N".
package capability

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// Options say how a document compiles for one run.
type Options struct {
	// Env is the account's operation environment: requests run as its ApiCall
	// (its Deps carry the HTTP client, the grants, the vault).
	Env *op.Environment
	// Account runs the capability (scopes the OAuth2 token cache).
	Account string
	// Credentials name vault entries per service host and field.
	Credentials map[string]map[string]string
	// Stubs replace running the named tasks with these outputs (cap test).
	Stubs map[string]map[string]any
	// NoNetwork makes a request task without a stub an error (cap test
	// without --live).
	NoNetwork bool
	// Tokens caches OAuth2 tokens (nil: a cache of this compile only).
	Tokens *TokenCache
	// Imports gives the capabilities that capability tasks name, and
	// Nested runs them (an engine without a checkpointer: an import runs
	// again whole if the process stops during it). Either nil: capability
	// tasks fail.
	Imports Importer
	Nested  *engine.Engine
}

// Importer gives the document a capability task imports.
type Importer interface {
	Import(ctx context.Context, dep *a2s.Dependency) (*a2s.Document, error)
}

// Compiled is a document compiled for one account and run configuration.
type Compiled struct {
	Doc  *a2s.Document
	Plan *engine.Plan
	// order lists the task ids as the flow names them, for "the output of the
	// last task that declares it".
	order []string
	meta  map[string]any
	opts  Options
}

// Compile turns a document into a plan. Problems that lint reports are not
// checked again here; problems only a run can see (a request whose OpenAPI
// specification does not load, a task without a stub in a test) are errors
// naming the task.
func Compile(doc *a2s.Document, o Options) (*Compiled, error) {
	if o.Tokens == nil {
		o.Tokens = NewTokenCache()
	}
	c := &Compiled{Doc: doc, meta: metadata(doc), opts: o,
		Plan: &engine.Plan{Steps: map[string]*engine.Step{}, OnError: engine.Stop}}
	refs := map[string]string{} // task id -> the step id that runs it (a gate or the task)
	for _, t := range doc.Tasks {
		id := t.ID.Value
		st, err := c.taskStep(t)
		if err != nil {
			return nil, err
		}
		c.Plan.Steps[id] = st
		refs[id] = id
		if t.Condition != nil && t.Type.Value != a2s.TaskCondition {
			gid := "$if/" + id
			c.Plan.Steps[gid] = &engine.Step{ID: gid, Name: "A2S.if", Op: &gateOp{task: id, cond: t.Condition, meta: c.meta},
				Spec: op.Spec{Name: "A2S.if", Control: true}}
			refs[id] = gid
		}
	}
	fc := &flowCompiler{c: c, refs: refs}
	if doc.Flow == nil {
		for _, t := range doc.Tasks {
			c.Plan.Order = append(c.Plan.Order, refs[t.ID.Value])
			c.order = append(c.order, t.ID.Value)
		}
	} else {
		ids, err := fc.steps([]*a2s.Step{doc.Flow})
		if err != nil {
			return nil, err
		}
		c.Plan.Order = ids
	}
	if sum, err := doc.ComputeChecksum(); err == nil {
		c.Plan.Digest = sum // a checkpoint resumes only under the same document
	}
	return c, nil
}

// taskStep builds the step of one task.
func (c *Compiled) taskStep(t *a2s.Task) (*engine.Step, error) {
	id := t.ID.Value
	st := &engine.Step{ID: id, Name: "A2S." + t.Type.Value, Output: taskOutputPath(id), Spec: op.Spec{Name: "A2S." + t.Type.Value}}
	if t.OnFailure != nil && t.OnFailure.Action.Value == a2s.ActionContinue {
		st.OnError = engine.Continue
	}
	if stub, ok := c.opts.Stubs[id]; ok {
		st.Op = &stubOp{outputs: stub}
		return st, nil
	}
	switch t.Type.Value {
	case a2s.TaskRequest:
		if c.opts.NoNetwork {
			// An error only if it comes to run: a request that a condition skips
			// needs no stub.
			st.Op = &failOp{err: taskFault(t, "is a request with no stubbed outputs; give them in the example's tasks, or run with --live")}
			return st, nil
		}
		rop, err := c.requestOp(t)
		if err != nil {
			return nil, err
		}
		st.Op = rop
		st.Spec.SideEffects = !safeMethod(rop.op.method)
	case a2s.TaskAgentDecision:
		if len(t.Logic) > 0 {
			lim := op.Limits{}
			if c.opts.Env != nil {
				lim = c.opts.Env.Deps().Limits
			}
			lop, err := newLogicOp(t, c.meta, lim)
			if err != nil {
				return nil, taskFault(t, "has logic that does not compile: %v", fault.From(err).Message)
			}
			st.Op = lop
			st.Spec.Pure = true
		} else {
			st.Op = &askOp{task: t, meta: c.meta, expected: expectedAnswer(t)}
		}
	case a2s.TaskPrompt:
		st.Op = &askOp{task: t, meta: c.meta, expected: expectedAnswer(t)}
	case a2s.TaskCondition:
		st.Op = &conditionTaskOp{task: t, meta: c.meta}
	case a2s.TaskCapability:
		st.Op = &importOp{task: t, meta: c.meta, parent: c}
		st.Spec.SideEffects = true
	default:
		return nil, taskFault(t, "has an unknown type %q", t.Type.Value)
	}
	return st, nil
}

func (c *Compiled) requestOp(t *a2s.Task) (*requestOp, error) {
	name := strings.TrimPrefix(t.Request.Value, "#/requests/")
	r := c.Doc.RequestByName(name)
	if r == nil {
		return nil, taskFault(t, "names request %q, which the document does not define", t.Request.Value)
	}
	oop, err := loadOperation(r)
	if err != nil {
		return nil, taskFault(t, "%v", err)
	}
	if c.opts.Env == nil {
		return nil, taskFault(t, "is a request, and this run has no operation environment")
	}
	rop := &requestOp{task: t, meta: c.meta, op: oop, env: c.opts.Env}
	host := t.Service.Value
	if fields := c.opts.Credentials[host]; len(fields) > 0 {
		auth := &serviceAuth{host: host, fields: fields, apiKey: oop.apiKeyHeader, tokens: c.opts.Tokens, account: c.opts.Account}
		if s := c.Doc.ServiceByHost(host); s != nil && s.OAuth2 != nil {
			auth.tokenURL = s.OAuth2.TokenURL.Value
			for _, sc := range s.OAuth2.Scopes {
				auth.scopes = append(auth.scopes, sc.Value)
			}
		}
		if err := checkBindings(c.opts.Env, t, auth, oop.server); err != nil {
			return nil, err
		}
		rop.creds = auth
	}
	return rop, nil
}

func taskFault(t *a2s.Task, format string, args ...any) *fault.Error {
	msg := fmt.Sprintf(format, args...)
	fe := fault.Typed(fault.Invalid, fault.ValidationError, "task %q %s", t.ID.Value, msg).WithOp(t.ID.Value)
	if t.Pos.Known() {
		fe = fe.WithDetail("line", t.Pos.Line).WithDetail("column", t.Pos.Col)
	}
	return fe
}

// flowCompiler turns the flow into step ids.
type flowCompiler struct {
	c    *Compiled
	refs map[string]string
	n    int
}

func (fc *flowCompiler) steps(steps []*a2s.Step) ([]string, error) {
	var ids []string
	for _, s := range steps {
		switch s.Kind {
		case a2s.StepTask:
			ref, ok := fc.refs[s.Task.Value]
			if !ok {
				return nil, fault.Typed(fault.Invalid, fault.ValidationError, "the flow names task %q, which the document does not define", s.Task.Value)
			}
			ids = append(ids, ref)
			fc.c.order = append(fc.c.order, s.Task.Value)
		case a2s.StepSequence:
			sub, err := fc.steps(s.Steps)
			if err != nil {
				return nil, err
			}
			ids = append(ids, sub...)
		case a2s.StepParallel:
			var branches [][]string
			for _, b := range s.Steps {
				sub, err := fc.steps([]*a2s.Step{b})
				if err != nil {
					return nil, err
				}
				branches = append(branches, sub)
			}
			fc.n++
			id := fmt.Sprintf("$par/%d", fc.n)
			fc.c.Plan.Steps[id] = &engine.Step{ID: id, Name: "A2S.parallel", Op: &parallelOp{branches: branches},
				Spec: op.Spec{Name: "A2S.parallel", Control: true}}
			ids = append(ids, id)
		case a2s.StepCondition:
			then, err := fc.steps(s.Then)
			if err != nil {
				return nil, err
			}
			els, err := fc.steps(s.Else)
			if err != nil {
				return nil, err
			}
			fc.n++
			id := fmt.Sprintf("$cond/%d", fc.n)
			fc.c.Plan.Steps[id] = &engine.Step{ID: id, Name: "A2S.condition",
				Op:   &ifOp{cond: s.If, then: then, els: els, meta: fc.c.meta, positionOf: "the flow condition at " + s.Pos.String()},
				Spec: op.Spec{Name: "A2S.condition", Control: true}}
			ids = append(ids, id)
		default:
			return nil, fault.Typed(fault.Invalid, fault.ValidationError, "unknown flow step kind %q at %s", s.Kind, s.Pos)
		}
	}
	return ids, nil
}

// Outputs computes the capability's outputs from a run's inputs and the
// results of its steps: each output's mapping, or else output X of the last
// task (in flow order) that ran and declares X, else null.
func (c *Compiled) Outputs(inputs map[string]any, results map[string]any) map[string]any {
	s := &state{inputs: inputs, tasks: map[string]any{}, meta: c.meta}
	for _, t := range c.Doc.Tasks {
		if v, ok := results[t.ID.Value]; ok {
			s.tasks[t.ID.Value] = v
		}
	}
	resolving := map[string]bool{}
	var output func(name string) (any, bool)
	output = func(name string) (any, bool) {
		p := a2s.FindParam(c.Doc.Outputs, name)
		if p == nil || resolving[name] {
			return nil, false
		}
		resolving[name] = true
		defer delete(resolving, name)
		if p.Mapping != nil {
			return s.mapping(p.Mapping), true
		}
		for i := len(c.order) - 1; i >= 0; i-- {
			t := c.Doc.TaskByID(c.order[i])
			outs, ran := s.tasks[c.order[i]].(map[string]any)
			if !ran || t == nil || a2s.FindParam(t.Outputs, name) == nil {
				continue
			}
			if v, ok := outs[name]; ok {
				return v, true
			}
		}
		return nil, true
	}
	s.outputs = output
	out := make(map[string]any, len(c.Doc.Outputs))
	for _, p := range c.Doc.Outputs {
		out[p.Name], _ = output(p.Name)
	}
	return out
}
