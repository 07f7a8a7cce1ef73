// Package a2aserver serves sluice's agents to Google A2A clients: it
// implements a2a-go's a2asrv.RequestHandler over sluice's run service, not
// over a2a-go's in-memory task store, so an A2A task is a durable run. A
// message to an agent starts an agent workflow of one step that calls it
// (internal/agentflow); the task id is the run id, and GetTask, CancelTask,
// SubscribeToTask and ListTasks read, cancel and follow the run through the
// run API (internal/runs), on whichever gateway, after a restart too.
//
// The package decides nothing about who calls: the gateway authenticates
// the caller, rate-limits and audits the request, and hands the principal
// to For. What a principal may reach (its agents grant) is checked here, on
// every method, because the agent is named by the route, not the request.
package a2aserver

import (
	"context"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/runs"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Flows starts and reads agent workflow runs (internal/agentflow's Runner).
type Flows interface {
	Start(ctx context.Context, accountID string, wf *agenthttp.Workflow, input json.RawMessage, clientID string) (string, error)
	Get(ctx context.Context, accountID, runID string) (*agentflow.Run, error)
}

// Runs lists, cancels and follows runs of every kind (internal/runs'
// Service).
type Runs interface {
	List(ctx context.Context, p *account.Principal, q runs.ListQuery) ([]runs.Summary, string, error)
	Cancel(ctx context.Context, p *account.Principal, id string) (*runs.Run, error)
	// Answer gives a waiting run its answer and runs it on while the
	// caller waits.
	Answer(ctx context.Context, p *account.Principal, id string, answer json.RawMessage) (*runs.Run, error)
	Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error
}

// Records reads a run's record (store.Executions has it).
type Records interface {
	GetExecution(ctx context.Context, accountID, id string) (store.Execution, error)
}

// Config are the services behind the A2A server.
type Config struct {
	Flows Flows
	Runs  Runs
	// Cards makes the extended card of a caller (GetExtendedAgentCard):
	// the card of agent ("" for the server's own card) as p sees it.
	Cards func(ctx context.Context, p *account.Principal, agent string) (*a2a.AgentCard, error)
	// Capabilities runs capabilities; nil: their endpoints answer
	// UnsupportedOperation. Records reads a run's record (its contextId,
	// kept as the run's session id); CapabilityCard makes a capability's
	// extended card.
	Capabilities   Capabilities
	Records        Records
	CapabilityCard func(ctx context.Context, p *account.Principal, ref string) (*a2a.AgentCard, error)
	// Push keeps and sends push notification configs (push.go); its zero
	// value offers none.
	Push Push
}

// Server makes the request handler of each A2A call, and sends the push
// notifications (RunPush).
type Server struct {
	cfg Config
	// wake tells RunPush that a config was set.
	wake chan struct{}
}

// New makes a Server over cfg's services.
func New(cfg Config) *Server { return &Server{cfg: cfg, wake: make(chan struct{}, 1)} }

// For is the request handler of one call by p to agent ("" for the
// server's own endpoint, which serves tasks and the extended card but
// starts none). The call's transport (a2asrv.NewJSONRPCHandler, the 0.3
// compatibility handler) wraps it.
func (s *Server) For(p *account.Principal, agent string) a2asrv.RequestHandler {
	h := &handler{s: s, p: p, agent: agent}
	h.pushes = pushes{s: s, p: p, check: func(ctx context.Context, id a2a.TaskID) error { _, err := h.run(ctx, id); return err }}
	return h
}

// history is t with its history (withHistory), read from its run's record;
// t as it is when the record does not read or n is 0.
func (s *Server) history(ctx context.Context, accountID string, t *a2a.Task, n *int) *a2a.Task {
	if n != nil && *n <= 0 || s.cfg.Records == nil {
		return t
	}
	rec, err := s.cfg.Records.GetExecution(ctx, accountID, string(t.ID))
	if err != nil {
		return t
	}
	return withHistory(t, rec, n)
}
