package gateway

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Gateway methods of multi-step agent workflows.
const (
	MethodAgentWorkflowRun = "agent.workflow.run"
	MethodAgentWorkflowGet = "agent.workflow.get"
)

// agentWorkflowRun is POST /api/v1/agent-workflows/runs {workflow, input}:
// the run is queued (202) and its steps run on the workers, durably.
func (s *Server) agentWorkflowRun(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	wfv, present := p.take("workflow")
	input, _ := p.take("input")
	if err := p.Done(); err != nil {
		return err
	}
	if !present {
		return fault.New(fault.Invalid, "params.workflow is required").WithDetail("path", "params.workflow")
	}
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
	id, err := s.svc.AgentFlows.Start(ctx, c.Principal.ID, wf, in)
	if err != nil {
		return err
	}
	run, err := s.svc.AgentFlows.Get(ctx, c.Principal.ID, id)
	if err != nil {
		return err
	}
	return w.Complete(run)
}

func (s *Server) agentWorkflowGet(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	if err := p.Done(); err != nil {
		return err
	}
	run, err := s.svc.AgentFlows.Get(ctx, c.Principal.ID, id)
	if err != nil {
		return err
	}
	return w.Complete(run)
}
