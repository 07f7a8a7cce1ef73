package acpagent

import (
	"context"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// asking is the error frame of an agent call that waits for its caller.
func asking(p *op.AgentPending) *e2a.Response {
	return e2a.ErrorFrame("upstream", "agent "+p.Agent+" asks", map[string]any{"details": map[string]any{op.DetailInputRequired: p.Map()}})
}

func prompt(t *testing.T, ed *editor, sid acp.SessionId, text string) {
	t.Helper()
	r, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt %q: %+v %v", text, r, err)
	}
}

// An agent's question with options (an ACP agent's permission request) is
// a permission request in the editor, with the agent's options and kinds;
// the choice goes back through agent.invoke with remote_task_id, and the
// agent's output ends the turn.
func TestAgentQuestionWithOptionsAsked(t *testing.T) {
	ask := &op.AgentPending{Agent: "coder", State: op.StateInputRequired, TaskID: "acpperm-1",
		Question: map[string]any{"title": "rm -rf build", "toolCall": map[string]any{"toolCallId": "t2"}},
		Options:  []op.AgentOption{{ID: "yes", Name: "Allow", Kind: "allow_once"}, {ID: "no", Name: "Reject", Kind: "reject_once"}}}
	c := &fakeCaller{answer: func(_ context.Context, env *e2a.Envelope) []*e2a.Response {
		if env.Params["remote_task_id"] == nil {
			return []*e2a.Response{asking(ask)}
		}
		in, _ := env.Params["input"].(map[string]any)
		return []*e2a.Response{e2a.CompleteFrame(map[string]any{"text": "chose " + in["optionId"].(string)})}
	}}
	ed, sid := serveTo(t, "coder", c)
	ed.Choose("Reject")
	prompt(t, ed, sid, "clean up")
	asked := ed.Asked()
	if len(asked) != 1 || len(asked[0].Options) != 2 || asked[0].Options[1].Kind != acp.PermissionOptionKindRejectOnce ||
		asked[0].Options[0].OptionId != "yes" || *asked[0].ToolCall.Title != "rm -rf build" {
		t.Fatalf("asked: %+v", asked)
	}
	if len(c.calls) != 2 || c.calls[1].Params["remote_task_id"] != "acpperm-1" || c.calls[1].Params["agent"] != "coder" {
		t.Fatalf("calls: %+v", c.calls)
	}
	if got := ed.Text(); !strings.HasSuffix(got, "chose no") {
		t.Fatalf("text %q", got)
	}
}

// An agent's question without options (an A2A agent's input-required) is
// shown as agent text and ends the turn; the next prompt answers it
// through agent.invoke with remote_task_id and context_id.
func TestAgentQuestionHandedBack(t *testing.T) {
	ask := &op.AgentPending{Agent: "talker", State: op.StateInputRequired, TaskID: "task-9", ContextID: "ctx-9",
		Question: map[string]any{"text": "which color?"}}
	c := &fakeCaller{answer: func(_ context.Context, env *e2a.Envelope) []*e2a.Response {
		if env.Params["remote_task_id"] == nil {
			return []*e2a.Response{asking(ask)}
		}
		in, _ := env.Params["input"].(map[string]any)
		return []*e2a.Response{e2a.CompleteFrame(map[string]any{"color": in["text"]})}
	}}
	ed, sid := serveTo(t, "talker", c)
	prompt(t, ed, sid, "paint it")
	if got := ed.Text(); !strings.Contains(got, "which color?") || !strings.Contains(got, "Reply with your answer") {
		t.Fatalf("the question: %q", got)
	}
	prompt(t, ed, sid, "blue")
	if len(c.calls) != 2 || c.calls[1].Params["remote_task_id"] != "task-9" || c.calls[1].Params["context_id"] != "ctx-9" {
		t.Fatalf("calls: %+v", c.calls[1].Params)
	}
	if got := ed.Text(); !strings.Contains(got, `"color": "blue"`) {
		t.Fatalf("the answer's output: %q", got)
	}
	if len(ed.Asked()) != 0 {
		t.Fatal("a question without options was asked as a permission request")
	}
	// The question was answered: the next prompt is a new call.
	prompt(t, ed, sid, "again")
	if c.calls[2].Params["remote_task_id"] != nil {
		t.Fatalf("a third prompt continued: %+v", c.calls[2].Params)
	}
}
