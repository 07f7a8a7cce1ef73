package caprun

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Kind is capability runs as the run service runs them. A run is
// synchronous (its caller waits) but checkpointed as it goes, so a run a
// crash stopped resumes after the restart.
func (s *Service) Kind() execution.Kind {
	return execution.Kind{Name: store.KindCapability, Method: e2a.MethodCapabilityRun, SyncResumes: true,
		Compile: s.compileRecord, Ended: ended}
}

// compileRecord compiles the capability a stored run names, as p may run
// it now: the same version (its checksum unchanged), still allowed.
func (s *Service) compileRecord(ctx context.Context, p *account.Principal, e store.Execution) (execution.Program, error) {
	d, err := parseDescriptor(e.Document)
	if err != nil {
		return nil, fault.New(fault.Internal, "run %s has an unreadable descriptor", e.ID)
	}
	pub, err := s.cfg.Registry.Resolve(ctx, d.Run.Namespace, d.Run.ID, d.Run.Version)
	if err != nil {
		return nil, err
	}
	if pub.Checksum != d.Run.Checksum {
		return nil, fault.New(fault.Conflict, "capability %s changed since run %s started", pub.Ref(), e.ID)
	}
	if err := s.allowed(p, pub); err != nil {
		return nil, err
	}
	c, err := s.compile(p, pub, d.Credentials)
	if err != nil {
		return nil, err
	}
	var inputs map[string]any
	if len(e.Input) > 0 {
		if err := json.Unmarshal(e.Input, &inputs); err != nil {
			return nil, fault.New(fault.Internal, "the inputs of run %s are unreadable", e.ID).WithCause(err)
		}
	}
	return &program{s: s, p: p, c: c, inputs: orEmpty(inputs)}, nil
}

// program is a capability compiled for one run.
type program struct {
	s      *Service
	p      *account.Principal
	c      *capability.Compiled
	inputs map[string]any
}

func (g *program) Plan() *engine.Plan { return g.c.Plan }

func (g *program) Result(res *engine.Result) any { return g.c.Result(res, g.inputs) }

// CheckAnswer refuses an answer that does not fit the question the run
// waits on.
func (g *program) CheckAnswer(e store.Execution, answer []byte) error {
	var prev capability.Result
	if err := json.Unmarshal(e.Result, &prev); err != nil || prev.Pending == nil {
		return fault.New(fault.Internal, "run %s waits but its pending question is unreadable", e.ID)
	}
	return capability.CheckAnswer(prev.Pending, answer)
}

// Finished keeps the outputs of a run that succeeded (even partly) by
// their lifecycle.
func (g *program) Finished(ctx context.Context, e store.Execution, res *engine.Result) {
	if res.Status == engine.StatusSuccess || res.Status == engine.StatusPartial {
		g.s.keep(ctx, g.p, g.c, e, g.c.Result(res, g.inputs))
	}
}

// ended is the result of a run that ends without running on (cancelled, or
// failed before it could): what its record held, with the new status and,
// when there are any, the new errors; it asks nothing any more.
func ended(_ context.Context, e store.Execution, res *engine.Result) any {
	r := capability.Result{RunID: e.ID, Outputs: map[string]any{}, Tasks: map[string]any{}}
	if len(e.Result) > 0 {
		_ = json.Unmarshal(e.Result, &r)
	}
	r.Status, r.Pending = res.Status, nil
	if len(res.Errors) > 0 {
		r.Errors = res.Errors
	}
	if r.Errors == nil {
		r.Errors = []fault.Object{}
	}
	return &r
}
