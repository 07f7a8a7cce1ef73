package runs

import (
	"context"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/caprun"
)

// The views of the kinds: each run shows, under detail, what its kind's
// own API shows of it.

// CapabilityRuns is what the run API needs of internal/caprun's Service.
type CapabilityRuns interface {
	Get(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
}

// AgentFlows is what the run API needs of internal/agentflow's Runner.
type AgentFlows interface {
	Get(ctx context.Context, accountID, runID string) (*agentflow.Run, error)
}

// view is one kind's view of a run.
type view func(ctx context.Context, p *account.Principal, id string) (any, error)
