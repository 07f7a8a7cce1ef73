package acpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Agent workflow targets are written flow:FILE, FILE an agent workflow
// document (docs/protocols/agent-http.md).
const flowPrefix = "flow:"

// loadFlow reads and checks the workflow document of a flow target once, at
// the start, so a bad document is the command's error, naming the file.
func loadFlow(path string) (json.RawMessage, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--agent flow:%s: %v", path, err)
	}
	if st.Size() > agenthttp.DefaultMaxWorkflowBytes {
		return nil, fmt.Errorf("--agent flow:%s: the workflow is %d bytes, over the %d-byte limit", path, st.Size(), agenthttp.DefaultMaxWorkflowBytes)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--agent flow:%s: %v", path, err)
	}
	if _, err := agenthttp.DecodeWorkflow(raw, agenthttp.Limits{}); err != nil {
		return nil, fmt.Errorf("--agent flow:%s: %v", path, err)
	}
	return raw, nil
}

// runFlow starts the agent workflow with the prompt as its input ({text,
// sessionId, cwd, prompt}: what an agent gets), follows the run's frames
// (run.events) and shows each step as a tool call; the last step's output
// is the answer. session/cancel cancels the run.
func (t Target) runFlow(ctx context.Context, tn *turn, in *promptIn) error {
	// The workflow's input is what an agent of the session would get.
	env, err := in.agentInvoke(t.name, tn.s)
	if err != nil {
		return err
	}
	input := env.Params["input"]
	var wf any
	if err := json.Unmarshal(t.flow, &wf); err != nil {
		return fault.New(fault.Internal, "the workflow of %s is not JSON any more", t)
	}
	out, err := tn.call(ctx, call("agent.workflow.run", map[string]any{"workflow": wf, "input": input}, tn.s))
	if err != nil {
		return err
	}
	started, _ := out.(map[string]any)
	runID, _ := started["run_id"].(string)
	if runID == "" {
		return fault.New(fault.Internal, "agent.workflow.run answered no run_id")
	}
	follow := &flowFollower{tn: tn}
	_, err = tn.callEach(ctx, call("run.events", map[string]any{"run_id": runID}, tn.s), follow.frame)
	if ctx.Err() != nil {
		tn.cancelWith(ctx, "agent.workflow.cancel", runID)
		return errCancelled
	}
	if err != nil {
		return err
	}
	if follow.result == nil {
		return fault.New(fault.Unavailable, "the run %s ended without its result", runID)
	}
	if st, _ := follow.result["status"].(string); st != "succeeded" && st != "success" {
		msg := "the run " + st
		if fs, _ := follow.result["failed_step"].(string); fs != "" {
			msg += " at step " + fs
		}
		return &callError{code: fault.Upstream.String(), message: fmt.Sprintf("%s: %s", t, msg)}
	}
	return tn.say(ctx, outputText(follow.result["output"]))
}

// flowFollower maps the run's stored frames (run.events' chunks, each
// {delta_kind: custom, delta: a frame of the run}) to updates: a step's
// engine events become its tool call; the run's final frame is its result.
type flowFollower struct {
	tn     *turn
	result map[string]any
}

var stepStatus = map[string]acp.ToolCallStatus{
	"started":  acp.ToolCallStatusInProgress,
	"retried":  acp.ToolCallStatusInProgress,
	"finished": acp.ToolCallStatusCompleted,
	"failed":   acp.ToolCallStatusFailed,
}

func (f *flowFollower) frame(ctx context.Context, body map[string]any) error {
	inner, _ := body["delta"].(map[string]any)
	if inner == nil {
		return nil
	}
	ib, _ := inner["body"].(map[string]any)
	if final, _ := inner["is_final"].(bool); final {
		if inner["response_kind"] == string(e2a.KindError) {
			return faultOf(ib)
		}
		f.result, _ = resultOf(ib["result"]).(map[string]any)
		return nil
	}
	ev, _ := ib["delta"].(map[string]any)
	if ev == nil || ev["type"] != "execution.event" {
		return nil
	}
	step, _ := ev["operationId"].(string)
	status, ok := stepStatus[fmt.Sprint(ev["kind"])]
	if step == "" || !ok {
		return nil
	}
	u := map[string]any{"toolCallId": "step-" + step, "title": "step " + step, "kind": "other", "status": string(status)}
	up, sendable, err := updateOf(map[string]any{"delta_kind": "tool", "delta": u}, f.tn.tools)
	if err != nil || !sendable {
		return err
	}
	return f.tn.update(ctx, up)
}
