// Package workflow is the A2E workflow service: for one account it validates a
// document on all five levels, compiles it for the engine and runs it. The CLI
// uses it today; the server's workflow.* methods will call the same code, so
// both surfaces apply one policy.
package workflow

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Account is the caller a workflow runs for.
type Account struct {
	ID          string
	Permissions policy.Permissions
	// Limits are the account's own workflow limits; zero fields take the
	// Runner's.
	Limits validate.Limits
}

// Runner validates and runs workflows. Its services are shared by all accounts;
// each call narrows them to the caller's permissions.
type Runner struct {
	catalog *op.Environment // every built-in, base services
	base    op.Deps
	engine  *engine.Engine
	limits  validate.Limits
	private func(host, port string) bool
	plans   *planCache // nil: every document is validated and compiled anew
}

// Config are the services and limits of a Runner.
type Config struct {
	// Deps are the shared services (HTTP client with egress rules, vault, storage,
	// cache, clock, limits); Permissions is ignored, it comes from each Account.
	Deps     op.Deps
	Engine   *engine.Engine
	Validate validate.Limits
	// PrivateAllowed is the server's egress allowlist as a check (for validation
	// warnings only; the HTTP client enforces it at dial time). May be nil.
	PrivateAllowed func(host, port string) bool
	// Catalog overrides the built-in operations (tests); nil means op.Builtins().
	Catalog []op.Registration
	// NoPlanCache turns off the cache of compiled plans, so every execution
	// validates and compiles its document anew.
	NoPlanCache bool
}

// New makes a Runner.
func New(c Config) *Runner {
	regs := c.Catalog
	if regs == nil {
		regs = op.Builtins()
	}
	eng := c.Engine
	if eng == nil {
		eng = engine.New(engine.Options{Clock: c.Deps.Clock, Cache: c.Deps.Cache})
	}
	r := &Runner{catalog: op.NewEnvironment(&c.Deps, regs...), base: c.Deps, engine: eng, limits: c.Validate, private: c.PrivateAllowed}
	if !c.NoPlanCache {
		r.plans = newPlanCache(c.Deps.Clock)
	}
	return r
}

// Environment is the catalog narrowed to what a may build, with a's grants.
func (r *Runner) Environment(a Account) *op.Environment {
	d := r.base
	d.Permissions = a.Permissions
	if a.Limits.MaxLoopIterations > 0 {
		d.Limits.MaxLoopIterations = a.Limits.MaxLoopIterations
	}
	return r.catalog.WithDeps(&d).With(a.Permissions.Operations...)
}

func (r *Runner) options(a Account, env *op.Environment) validate.Options {
	perms := a.Permissions
	limits := r.limits
	if a.Limits.MaxOperations > 0 {
		limits.MaxOperations = a.Limits.MaxOperations
	}
	if a.Limits.MaxLoopIterations > 0 {
		limits.MaxLoopIterations = a.Limits.MaxLoopIterations
	}
	return validate.Options{Env: env, Permissions: &perms, Limits: limits, PrivateAllowed: r.private,
		CredentialHosts: op.BindingLookup(r.base.Vault)}
}

// Validate checks a JSONL document for a. A valid document is compiled and
// kept in the plan cache like one executed, so validating it again (agents
// validate before they execute, and retry) costs a cache look-up, and so does
// executing it next.
func (r *Runner) Validate(doc []byte, a Account) *validate.Report {
	return r.ValidateSource(Source{Document: doc}, a)
}

// ValidateSource is Validate for a workflow in any of its forms.
func (r *Runner) ValidateSource(src Source, a Account) *validate.Report {
	c, _, report := r.CompileSource(src, a)
	if report != nil {
		return report
	}
	warnings := c.warnings
	if warnings == nil {
		warnings = []fault.Object{}
	}
	return &validate.Report{Valid: true, Errors: []fault.Object{}, Warnings: warnings, Workflow: c.workflow}
}

// Options of one execution.
type Options struct {
	Input            any           // the /input object
	SessionID        string        // "" : session storage lives as long as the execution
	MaxExecutionTime time.Duration // 0: the engine's default (30 s)
	OnEvent          func(engine.Event)
	// OnWarnings receives the validation warnings of a valid document before it runs.
	OnWarnings func([]fault.Object)
}

// Execute validates doc for a and, when it is valid, runs it. Exactly one of the
// result and the report of an invalid document is non-nil. A document this
// account ran before with the same grants runs from the plan cache.
func (r *Runner) Execute(ctx context.Context, doc []byte, a Account, o Options) (*engine.Result, *validate.Report) {
	c, report := r.Compile(doc, a)
	if report != nil {
		return nil, report
	}
	if o.OnWarnings != nil && len(c.warnings) > 0 {
		o.OnWarnings(c.warnings)
	}
	res := r.engine.Run(ctx, c.plan, engine.RunOptions{
		ExecutionID:      ids.New(ids.Execution),
		Account:          a.ID,
		SessionID:        o.SessionID,
		Input:            o.Input,
		MaxExecutionTime: o.MaxExecutionTime,
		OnEvent:          o.OnEvent,
	})
	return res, nil
}

// Compile validates doc for a and compiles it, or takes both from the plan
// cache. Exactly one result is non-nil: the compiled workflow, or the report
// of an invalid document.
func (r *Runner) Compile(doc []byte, a Account) (*Compiled, *validate.Report) {
	c, _, report := r.CompileSource(Source{Document: doc}, a)
	return c, report
}

// CompileSource is Compile for a workflow in any of its forms. It also
// answers the workflow's document, the bytes an execution record keeps (see
// Source).
func (r *Runner) CompileSource(src Source, a Account) (*Compiled, []byte, *validate.Report) {
	doc, check := r.read(src)
	key, clientID := r.plans.key(doc, a)
	if c, ok := r.plans.get(a.ID, key); ok {
		return c.withExecutionID(clientID), doc, nil
	}
	env := r.Environment(a)
	report := check(r.options(a, env))
	if !report.Valid {
		return nil, doc, report
	}
	plan, err := engine.CompileBuilt(report.Workflow, env, report.Built)
	if err != nil {
		// Validation builds every operation the same way, so this is a defect or a
		// race with a permission change; report it like an invalid document.
		fe := fault.From(err)
		return nil, doc, &validate.Report{Errors: []fault.Object{fe.Object()}, Warnings: report.Warnings}
	}
	c := &Compiled{plan: plan, workflow: report.Workflow, warnings: report.Warnings}
	r.plans.put(a.ID, key, c)
	return c, doc, nil
}

// Compiled is a valid document compiled for one account: what Execute runs, and
// what the plan cache keeps. It is read-only and may be run by many executions
// at once.
type Compiled struct {
	plan     *engine.Plan
	workflow *a2e.Workflow
	warnings []fault.Object
}

// Plan is the engine plan.
func (c *Compiled) Plan() *engine.Plan { return c.plan }

// Workflow is the decoded document (its beginExecution carries the client's
// executionId, the idempotency key of RESOLUTIONS).
func (c *Compiled) Workflow() *a2e.Workflow { return c.workflow }

// withExecutionID is c for a document that differs from c's only in its
// executionId (see planCache.key): the plan is shared, the workflow's
// beginExecution carries id.
func (c *Compiled) withExecutionID(id string) *Compiled {
	if c.workflow == nil || c.workflow.Begin.ExecutionID == id {
		return c
	}
	w := *c.workflow
	w.Begin.ExecutionID = id
	return &Compiled{plan: c.plan, workflow: &w, warnings: c.warnings}
}

// Warnings are validation's warnings for the document.
func (c *Compiled) Warnings() []fault.Object { return c.warnings }
