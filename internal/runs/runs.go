// Package runs is the one run API over every kind of durable run: A2E
// executions, A2S capability runs (internal/caprun) and agent workflow runs
// (internal/agentflow). All three are store.Execution records with a Kind,
// run by one run service (internal/execution's Manager); this package lists
// them together, cancels and streams them through that service, so every
// kind has the same guarantees (one final frame, gapless sequences,
// cross-gateway cancel), and shows each with its kind's own view. It knows
// nothing of HTTP: the gateway's run.* methods call it.
package runs

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Config are the services behind the run API. Executions, the run
// service, runs, cancels and streams every kind; a kind whose view is not
// given shows its summary alone.
type Config struct {
	Store      store.Executions
	Executions *execution.Manager
	// Capabilities is internal/caprun's Service (or what stands in for it).
	Capabilities CapabilityRuns
	AgentFlows   AgentFlows
}

// Service is the run API. It is safe for concurrent use.
type Service struct {
	store store.Executions
	runs  *execution.Manager
	views map[string]view // by store kind; the one place a kind is dispatched
}

// New makes a Service over cfg's services.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, runs: cfg.Executions, views: map[string]view{}}
	if m := cfg.Executions; m != nil {
		s.views[store.KindA2E] = func(ctx context.Context, p *account.Principal, id string) (any, error) { return m.Get(ctx, p, id) }
	}
	if c := cfg.Capabilities; c != nil {
		s.views[store.KindCapability] = func(ctx context.Context, p *account.Principal, id string) (any, error) { return c.Get(ctx, p, id) }
	}
	if f := cfg.AgentFlows; f != nil {
		s.views[store.KindAgentWorkflow] = func(ctx context.Context, p *account.Principal, id string) (any, error) {
			return f.Get(ctx, p.ID, id)
		}
	}
	return s
}

// Run is one run as GET /api/v1/runs/{id} shows it: its summary and, under
// detail, the run as its kind's own API shows it.
type Run struct {
	Summary
	// Input is the input the run was started with, as its caller gave it.
	Input json.RawMessage `json:"input,omitempty"`
	// Plan is an A2E run's operations as its document declares them (ids
	// and operation names only), so a client can draw steps not yet run.
	Plan   []Step `json:"plan,omitempty"`
	Detail any    `json:"detail,omitempty"`
}

// Get returns one of p's runs, of any kind.
func (s *Service) Get(ctx context.Context, p *account.Principal, id string) (*Run, error) {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	run := &Run{Summary: summaryOf(e), Input: e.Input}
	if e.Kind == store.KindA2E {
		run.Plan = planOf(e.Document)
	}
	if v, ok := s.views[e.Kind]; ok {
		if run.Detail, err = v(ctx, p, id); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// Cancel ends one of p's runs that has not finished, through the run
// service, and returns it. A finished run is a Conflict naming its status,
// whatever its kind.
func (s *Service) Cancel(ctx context.Context, p *account.Principal, id string) (*Run, error) {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if e.Status.Final() {
		return nil, alreadyFinal(e)
	}
	if s.runs == nil {
		return nil, notOffered(e)
	}
	if _, err := s.runs.CancelRun(ctx, p.ID, id); err != nil {
		if fault.KindOf(err) == fault.Conflict {
			if e, gerr := s.store.GetExecution(ctx, p.ID, id); gerr == nil && e.Status.Final() {
				return nil, alreadyFinal(e)
			}
		}
		return nil, err
	}
	return s.Get(ctx, p, id)
}

// Answer gives p's answer to the question one of p's waiting runs asks
// (an agent step whose remote task asks for input, a capability's prompt),
// runs it on while the caller waits, through the run service, and returns
// the run as it is then (waiting again when it asks another question).
func (s *Service) Answer(ctx context.Context, p *account.Principal, id string, answer json.RawMessage) (*Run, error) {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if s.runs == nil {
		return nil, notOffered(e)
	}
	if _, err := s.runs.Answer(ctx, p, id, answer, nil); err != nil {
		return nil, err
	}
	return s.Get(ctx, p, id)
}

// Follow sends one of p's runs' frames after afterSeq until its final
// frame, through the run service, whatever its kind.
func (s *Service) Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return err
	}
	if s.runs == nil {
		return notOffered(e)
	}
	return s.runs.Follow(ctx, p, id, afterSeq, send)
}

func alreadyFinal(e store.Execution) *fault.Error {
	return fault.New(fault.Conflict, "run %s is already %s", e.ID, e.Status).
		WithDetail("status", string(e.Status)).WithDetail("kind", e.Kind)
}

// notOffered is the error for a run whose kind this server does not run
// (its service is not configured): its record is there, its runner is not.
func notOffered(e store.Execution) *fault.Error {
	return fault.New(fault.Unavailable, "run %s is of kind %s, which this server does not run", e.ID, e.Kind).
		WithDetail("kind", e.Kind)
}
