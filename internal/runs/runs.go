// Package runs is the one run API over every kind of durable run: A2E
// executions (internal/execution), A2S capability runs (internal/caprun) and
// agent workflow runs (internal/agentflow). All three are store.Execution
// records with a Kind; this package lists them together and sends get, cancel
// and events to the service that owns the record's kind, so each kind keeps
// its own guarantees (one final frame, gapless sequences, cross-gateway
// cancel) while a caller sees one shape. It knows nothing of HTTP: the
// gateway's run.* methods call it.
package runs

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// DefaultRecordPoll is Config.RecordPoll's default.
const DefaultRecordPoll = 500 * time.Millisecond

// Owner is the service that runs one kind of run, as the run API needs it.
// Each method is the kind's own, scoped to p's account: another account's
// run is NotFound.
type Owner interface {
	// View is the run as the kind's own API shows it (the detail of a Run).
	View(ctx context.Context, p *account.Principal, id string) (any, error)
	// Cancel ends a run that has not finished, as the kind's own cancel
	// does, and returns its view.
	Cancel(ctx context.Context, p *account.Principal, id string) (any, error)
	// Follow sends the run's frames after afterSeq, stored then live, until
	// its final frame (or ctx's end).
	Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error
}

// Config are the services behind the run API. A nil service: its kind's
// runs are listed and read from their records, but not cancelled.
type Config struct {
	Store      store.Executions
	Executions *execution.Manager
	// Capabilities is internal/caprun's Service (or what stands in for it).
	Capabilities CapabilityRuns
	AgentFlows   AgentFlows
	// RecordPoll is how often the events stream of a run whose kind stores
	// no frames reads the run's record, to end when the run does (default
	// DefaultRecordPoll).
	RecordPoll time.Duration
}

// Service is the run API. It is safe for concurrent use.
type Service struct {
	store  store.Executions
	owners map[string]Owner // by store kind; the one place a kind is dispatched
}

// New makes a Service over cfg's services.
func New(cfg Config) *Service {
	if cfg.RecordPoll <= 0 {
		cfg.RecordPoll = DefaultRecordPoll
	}
	s := &Service{store: cfg.Store, owners: map[string]Owner{}}
	if cfg.Executions != nil {
		s.owners[store.KindA2E] = a2eOwner{cfg.Executions}
	}
	if cfg.Capabilities != nil {
		s.owners[store.KindCapability] = capabilityOwner{runs: cfg.Capabilities,
			frames: recordFrames{store: cfg.Store, poll: cfg.RecordPoll, method: methodCapabilityRun}}
	}
	if cfg.AgentFlows != nil {
		s.owners[store.KindAgentWorkflow] = agentFlowOwner{runs: cfg.AgentFlows,
			frames: recordFrames{store: cfg.Store, poll: cfg.RecordPoll, method: methodAgentWorkflowRun}}
	}
	return s
}

// Run is one run as GET /api/v1/runs/{id} shows it: its summary and, under
// detail, the run as its kind's own API shows it.
type Run struct {
	Summary
	Detail any `json:"detail,omitempty"`
}

// Get returns one of p's runs, of any kind.
func (s *Service) Get(ctx context.Context, p *account.Principal, id string) (*Run, error) {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	run := &Run{Summary: summaryOf(e)}
	if o, ok := s.owners[e.Kind]; ok {
		if run.Detail, err = o.View(ctx, p, id); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// Cancel ends one of p's runs that has not finished, through the service
// that runs it, and returns it. A finished run is a Conflict naming its
// status, whatever its kind (the capability runs' own cancel answers a
// finished run as it is; this one says so the same way for every kind).
func (s *Service) Cancel(ctx context.Context, p *account.Principal, id string) (*Run, error) {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if e.Status.Final() {
		return nil, alreadyFinal(e)
	}
	o, ok := s.owners[e.Kind]
	if !ok {
		return nil, notOffered(e)
	}
	detail, err := o.Cancel(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if e, err = s.store.GetExecution(ctx, p.ID, id); err != nil {
		return nil, err
	}
	return &Run{Summary: summaryOf(e), Detail: detail}, nil
}

// Follow sends one of p's runs' frames after afterSeq until its final
// frame, through the service that runs it. A kind that stores no frames
// sends one, the final frame, built from the record once the run has
// finished (recordFrames).
func (s *Service) Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error {
	e, err := s.store.GetExecution(ctx, p.ID, id)
	if err != nil {
		return err
	}
	o, ok := s.owners[e.Kind]
	if !ok {
		return notOffered(e)
	}
	return o.Follow(ctx, p, id, afterSeq, send)
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
