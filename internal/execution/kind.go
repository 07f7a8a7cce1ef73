package execution

import (
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// notA2E is the error for cancelling, through this manager, a record another
// runner owns: a capability run or an agent workflow run.
func notA2E(e store.Execution) *fault.Error {
	what, how := "an A2S capability run", "capability.cancel (POST /api/v1/a2s/runs/{id}/cancel)"
	if e.Kind == store.KindAgentWorkflow {
		what, how = "an agent workflow run", "agent.workflow.cancel (POST /api/v1/agent-workflows/runs/{id}/cancel)"
	}
	return fault.New(fault.Conflict, "execution %s is %s, not an A2E execution", e.ID, what).
		WithDetail("executionId", e.ID).WithDetail("kind", e.Kind).
		WithSuggestions("Cancel it with " + how)
}
