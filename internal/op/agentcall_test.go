package op_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// askingAgent asks a question on its first call and answers the next one,
// recording what each call carried beyond its input.
type askingAgent struct {
	calls   int
	taskIDs []string
	inputs  []string
	cont    []op.AgentContinuation
}

func (a *askingAgent) Invoke(ctx context.Context, name, taskID string, input json.RawMessage, _ string) (json.RawMessage, error) {
	a.calls++
	a.taskIDs = append(a.taskIDs, taskID)
	a.inputs = append(a.inputs, string(input))
	c, _ := op.AgentContinuationFrom(ctx)
	a.cont = append(a.cont, c)
	if up := op.AgentUpdatesFrom(ctx); up != nil {
		up(op.AgentUpdate{Kind: "text", Delta: "thinking"})
	}
	if a.calls == 1 {
		p := &op.AgentPending{Agent: name, State: "TASK_STATE_INPUT_REQUIRED", TaskID: "remote-1", ContextID: "ctx-1",
			Question: map[string]any{"text": "which color?"}}
		return nil, fault.New(fault.Upstream, "agent %s asks for input", name).WithDetail(op.DetailInputRequired, p.Map())
	}
	return json.RawMessage(`{"color":"blue"}`), nil
}

// An InvokeAgent step whose remote task asks for input saves the remote
// task and suspends with the question; resumed with the answer, it sends
// it on that same task under a message id of its own; resumed without one,
// it asks again without calling the agent. Its updates are its progress.
func TestInvokeAgentWaitsForARemoteQuestion(t *testing.T) {
	a := &askingAgent{}
	d := dtDeps()
	d.Agents = a
	d.Permissions.Agents = []string{"planner"}
	o, err := op.InvokeAgentOp.New(json.RawMessage(`{"agent":"planner","input":{"goal":"ship"},"outputPath":"/workflow/o"}`), d)
	if err != nil {
		t.Fatal(err)
	}
	var saved json.RawMessage
	var progress []string
	rcFor := func(state, answer json.RawMessage) *op.RunContext {
		rc := dtRC(dtModel(t, `{}`, nil))
		rc.ExecutionID, rc.OperationID, rc.Account = "exec-1", "ask", "acct-1"
		rc.State, rc.Answer = state, answer
		rc.Save = func(s json.RawMessage) error { saved = s; return nil }
		rc.Progress = func(kind string, delta any) { progress = append(progress, kind+":"+delta.(string)) }
		return rc
	}

	_, err = o.Run(context.Background(), rcFor(nil, nil))
	var s *op.Suspend
	if !errors.As(err, &s) {
		t.Fatalf("first run: %v, want a suspend", err)
	}
	req := s.Request.(map[string]any)
	if req["type"] != "agent_input" || req["remoteTaskId"] != "remote-1" || req["question"].(map[string]any)["text"] != "which color?" {
		t.Fatalf("request %v", req)
	}
	if p, ok := op.AgentWaitOf(req); !ok || p.Agent != "planner" || p.TaskID != "remote-1" {
		t.Fatalf("AgentWaitOf %+v %v", p, ok)
	}
	var st op.AgentPending
	if err := json.Unmarshal(saved, &st); err != nil || st.TaskID != "remote-1" || st.ContextID != "ctx-1" {
		t.Fatalf("saved state %s", saved)
	}

	out, err := o.Run(context.Background(), rcFor(saved, json.RawMessage(`"blue"`)))
	if err != nil {
		t.Fatal(err)
	}
	dtWantJSON(t, out, `{"color":"blue"}`)
	if a.calls != 2 || a.cont[1] != (op.AgentContinuation{TaskID: "remote-1", ContextID: "ctx-1"}) || a.inputs[1] != `{"text":"blue"}` ||
		a.taskIDs[1] == a.taskIDs[0] || a.cont[0] != (op.AgentContinuation{}) {
		t.Fatalf("calls: ids %v, inputs %v, continuations %+v", a.taskIDs, a.inputs, a.cont)
	}
	if len(progress) != 2 || progress[0] != "text:thinking" {
		t.Fatalf("progress %v", progress)
	}

	_, err = o.Run(context.Background(), rcFor(saved, nil))
	if !errors.As(err, &s) || a.calls != 2 {
		t.Fatalf("resumed without an answer: %v after %d calls, want the question again and no call", err, a.calls)
	}
}
