package execution

import (
	"context"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Kind is one kind of run: how its stored record becomes an engine plan
// and what its result looks like. The Manager does everything else the
// same way for every kind (store, queue, lease, checkpoint, park, cancel,
// recover, frames), so a capability run or an agent workflow run has the
// guarantees of an A2E execution. A2E executions are built in (Config.Runner);
// the others are given with Register.
type Kind struct {
	// Name is the record's kind (store.KindCapability, ...).
	Name string
	// Method is the gateway method that starts a run of this kind: the
	// method its frames answer.
	Method string
	// Compile makes the program of e as p may run it now: an asynchronous
	// run, resumed later, runs with the grants its account has then. Its
	// error fails the run.
	Compile func(ctx context.Context, p *account.Principal, e store.Execution) (Program, error)
	// Ended is the result of e ending without its program: cancelled, or
	// failed before it could be compiled or run. res has the status, the
	// errors and, for A2E, what the record held; the kind adds what it
	// had done (nil: res itself, as for A2E).
	Ended func(ctx context.Context, e store.Execution, res *engine.Result) any
	// SyncResumes: a synchronous run is checkpointed as it goes and, after a
	// crash, resumed like an asynchronous one. Otherwise it is not
	// checkpointed and a crash ends it failed (A2E, RESOLUTIONS "Durability").
	SyncResumes bool
}

// Program is one record compiled for its account.
type Program interface {
	Plan() *engine.Plan
	// Result is what the record stores, and the final frame answers, for
	// the engine's res.
	Result(res *engine.Result) any
}

// Finisher is a Program told of its run's final result once it is stored
// (a capability keeps its outputs). It must not fail the run: the record
// holds the result whatever it does.
type Finisher interface {
	Finished(ctx context.Context, e store.Execution, res *engine.Result)
}

// CheckpointReader is a Program that reads checkpoints the engine does not
// write: a kind whose runs once kept their own format (agent workflows)
// turns such a checkpoint into the engine's, so that a run in flight when
// the server was upgraded resumes after its last recorded step. ok false: raw
// is the engine's own.
type CheckpointReader interface {
	ReadCheckpoint(e store.Execution, raw []byte) (cp *engine.Checkpoint, ok bool, err error)
}

// AnswerChecker is a Program that refuses a wrong answer to the question a
// waiting run asks, before the run goes on (it keeps waiting).
type AnswerChecker interface {
	CheckAnswer(e store.Execution, answer []byte) error
}

// a2eKind is the built-in kind of A2E executions.
func (m *Manager) a2eKind() Kind {
	return Kind{Name: store.KindA2E, Method: e2a.MethodWorkflowExecute,
		Compile: func(_ context.Context, p *account.Principal, e store.Execution) (Program, error) {
			c, report := m.cfg.Runner.Compile(e.Document, Account(p))
			if report != nil {
				return nil, report.Err()
			}
			return a2eProgram{c}, nil
		}}
}

// a2eProgram is a compiled A2E workflow: its result is the engine's.
type a2eProgram struct{ c *workflow.Compiled }

func (a a2eProgram) Plan() *engine.Plan            { return a.c.Plan() }
func (a a2eProgram) Result(res *engine.Result) any { return res }

// kind is the Kind of records named name.
func (m *Manager) kind(name string) (Kind, error) {
	m.mu.Lock()
	k, ok := m.kinds[name]
	m.mu.Unlock()
	if ok {
		return k, nil
	}
	return Kind{}, fault.New(fault.Internal, "no runner for runs of kind %q on this server", name).WithDetail("kind", name)
}

// ended is the Program of a run that ends without running its plan.
type ended struct {
	ctx context.Context
	k   Kind
	e   store.Execution
}

func (p ended) Plan() *engine.Plan { return nil }

func (p ended) Result(res *engine.Result) any {
	if p.k.Ended == nil {
		return res
	}
	return p.k.Ended(p.ctx, p.e, res)
}

// endedProgram is the Program that stores how e ended without running.
func (m *Manager) endedProgram(ctx context.Context, e store.Execution) Program {
	k, _ := m.kind(e.Kind) // an unknown kind ends with the engine's result
	return ended{ctx: ctx, k: k, e: e}
}

// notA2E is the error for cancelling, through the A2E API, a run of
// another kind: a capability run or an agent workflow run.
func notA2E(e store.Execution) *fault.Error {
	what, how := "an A2S capability run", "capability.cancel (POST /api/v1/a2s/runs/{id}/cancel)"
	if e.Kind == store.KindAgentWorkflow {
		what, how = "an agent workflow run", "agent.workflow.cancel (POST /api/v1/agent-workflows/runs/{id}/cancel)"
	}
	return fault.New(fault.Conflict, "execution %s is %s, not an A2E execution", e.ID, what).
		WithDetail("executionId", e.ID).WithDetail("kind", e.Kind).
		WithSuggestions("Cancel it with "+how, "Cancel any run with run.cancel (POST /api/v1/runs/{id}/cancel)")
}
