package runs

import (
	"context"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/execution"
)

// The owners of the three kinds: each passes the run API's calls to its
// service's own, unchanged, so the old routes and the new answer alike.

// CapabilityRuns is what the run API needs of internal/caprun's Service.
type CapabilityRuns interface {
	Get(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
	Cancel(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
}

// AgentFlows is what the run API needs of internal/agentflow's Runner.
type AgentFlows interface {
	Get(ctx context.Context, accountID, runID string) (*agentflow.Run, error)
	Cancel(ctx context.Context, accountID, runID string) (*agentflow.Run, error)
}

// a2eOwner: A2E executions store their frames, so their stream is the
// execution's own (execution.Manager.Follow).
type a2eOwner struct{ m *execution.Manager }

func (o a2eOwner) View(ctx context.Context, p *account.Principal, id string) (any, error) {
	return o.m.Get(ctx, p, id)
}

func (o a2eOwner) Cancel(ctx context.Context, p *account.Principal, id string) (any, error) {
	return o.m.Cancel(ctx, p, id)
}

func (o a2eOwner) Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error {
	return o.m.Follow(ctx, p, id, afterSeq, send)
}

// capabilityOwner: capability runs store no frames; their stream is their
// record's (recordFrames).
type capabilityOwner struct {
	runs   CapabilityRuns
	frames recordFrames
}

func (o capabilityOwner) View(ctx context.Context, p *account.Principal, id string) (any, error) {
	return o.runs.Get(ctx, p, id)
}

func (o capabilityOwner) Cancel(ctx context.Context, p *account.Principal, id string) (any, error) {
	return o.runs.Cancel(ctx, p, id)
}

func (o capabilityOwner) Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error {
	return o.frames.follow(ctx, p, id, afterSeq, o.View, send)
}

// agentFlowOwner: agent workflow runs store no frames either.
type agentFlowOwner struct {
	runs   AgentFlows
	frames recordFrames
}

func (o agentFlowOwner) View(ctx context.Context, p *account.Principal, id string) (any, error) {
	return o.runs.Get(ctx, p.ID, id)
}

func (o agentFlowOwner) Cancel(ctx context.Context, p *account.Principal, id string) (any, error) {
	return o.runs.Cancel(ctx, p.ID, id)
}

func (o agentFlowOwner) Follow(ctx context.Context, p *account.Principal, id string, afterSeq int64, send func(execution.Frame) error) error {
	return o.frames.follow(ctx, p, id, afterSeq, o.View, send)
}
