package gateway

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// agentWorkflowRun is POST /api/v1/agent-workflows/runs {workflow, input}:
// the run is queued (202) and its steps run on the workers, durably.
func (s *Server) agentWorkflowRun(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	wfv := a.Any("workflow")
	input := a.Any("input")
	raw, ok := wfv.(string)
	if !ok {
		b, err := json.Marshal(wfv)
		if err != nil {
			return fault.New(fault.Invalid, "params.workflow is not JSON").WithDetail("path", "params.workflow")
		}
		raw = string(b)
	}
	wf, err := agenthttp.DecodeWorkflow([]byte(raw), agenthttp.Limits{})
	if err != nil {
		return fault.New(fault.Invalid, "params.workflow: %v", err).WithDetail("path", "params.workflow")
	}
	for _, id := range wf.StepIDs() {
		if name := wf.Steps[id].AgentName; !allowsAgent(c.Principal, name) {
			return fault.Typed(fault.PermissionDenied, fault.PermissionError, "step %q calls agent %q, which is not in this account's agents", id, name)
		}
	}
	in := json.RawMessage(`{}`)
	if input != nil {
		if in, err = json.Marshal(input); err != nil {
			return fault.New(fault.Invalid, "params.input is not JSON").WithDetail("path", "params.input")
		}
	}
	id, err := s.svc.AgentFlows.Start(ctx, c.Principal.ID, wf, in, a.String("client_id"))
	if err != nil {
		return err
	}
	run, err := s.svc.AgentFlows.Get(ctx, c.Principal.ID, id)
	if err != nil {
		return err
	}
	return w.Complete(run)
}

func (s *Server) agentWorkflowGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	run, err := s.svc.AgentFlows.Get(ctx, c.Principal.ID, a.String("id"))
	if err != nil {
		return err
	}
	return w.Complete(run)
}

// agentWorkflowCancel is POST /api/v1/agent-workflows/runs/{id}/cancel: the
// caller's run (an admin may name another account's with account_id) is
// cancelled and answered. An unknown id and another account's run are both
// 404, as for GET; a finished run is 409 naming its status.
func (s *Server) agentWorkflowCancel(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("id")
	named := a.String("account_id")
	owner := c.Principal.ID
	if named != "" && named != owner {
		// Refused whether or not the run exists: nothing is learnt.
		if !c.Principal.Admin() {
			return fault.Typed(fault.PermissionDenied, fault.PermissionError,
				"params.account_id: only an admin may cancel another account's run").WithDetail("path", "params.account_id")
		}
		owner = named
	}
	run, err := s.svc.AgentFlows.Cancel(ctx, owner, id)
	if err != nil {
		return err
	}
	return w.Complete(run)
}

// agentWorkflowList is GET /api/v1/agent-workflows/runs: the caller's runs,
// newest first ({runs, next_cursor}).
func (s *Server) agentWorkflowList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	q := agentflow.ListQuery{Cursor: a.String("cursor"), Limit: a.Int("limit")}
	var err error
	if q.Status, err = statusParam(a); err != nil {
		return err
	}
	runs, next, err := s.svc.AgentFlows.List(ctx, c.Principal.ID, q)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"runs": runs, "next_cursor": next})
}
