package acpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/fault"
)

// Decision is work that waits for the editor's user to choose, shown as a
// tool call and asked with session/request_permission: a capability run's
// pending task whose answer has a closed set of values, or an agent's
// question with options (an agent call that failed with
// details.inputRequired, such as an ACP agent's permission request).
type Decision struct {
	ID      string // the tool call's id
	Title   string
	Inputs  any // shown as the tool call's rawInput
	Options []Option
}

// Option is one choice and the answer it gives.
type Option struct {
	ID, Name string
	Reject   bool // shown as reject_once, else allow_once
	// Kind, when set, is the option's kind as the agent gave it (it wins
	// over Reject).
	Kind   acp.PermissionOptionKind
	Answer any
}

// rejectWords mark an option that says no, for the editor's styling only:
// the answer is the value whatever its kind.
var rejectWords = []string{"no", "false", "reject", "rejected", "refuse", "refused", "deny", "denied", "decline", "declined", "cancel", "abort", "stop"}

// decisionOf is the decision of a run's pending task when its expected
// output is one member with a closed set of values (an enum, or a
// boolean); nil when it is not (the question is handed back as text).
func decisionOf(runID string, p *client.Pending) *Decision {
	props, _ := p.Expected["properties"].(map[string]any)
	if len(props) != 1 {
		return nil
	}
	var name string
	var schema map[string]any
	for k, v := range props {
		name, schema = k, asMap(v)
	}
	var values []any
	if enum, ok := schema["enum"].([]any); ok {
		values = enum
	} else if schema["type"] == "boolean" {
		values = []any{true, false}
	}
	if len(values) == 0 || len(values) > 16 {
		return nil
	}
	title := p.Prompt
	if title == "" {
		title = "Decide " + p.Task
	}
	d := &Decision{ID: "decision-" + runID + "-" + p.Task, Title: title, Inputs: p.Inputs}
	seen := map[string]bool{}
	for i, v := range values {
		label := fmt.Sprint(v)
		if b, ok := v.(bool); ok {
			label = map[bool]string{true: "yes", false: "no"}[b]
		}
		id := label
		if seen[id] {
			id = fmt.Sprintf("%s#%d", label, i)
		}
		seen[id] = true
		d.Options = append(d.Options, Option{ID: id, Name: label, Answer: map[string]any{name: v},
			Reject: slices.Contains(rejectWords, strings.ToLower(label))})
	}
	return d
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// decide shows d as a tool call, asks the editor, and returns the chosen
// option's answer; errCancelled when the editor cancelled.
func (t *turn) decide(ctx context.Context, d *Decision) (any, error) {
	if err := t.update(ctx, acp.StartToolCall(acp.ToolCallId(d.ID), d.Title, acp.WithStartKind(acp.ToolKindThink),
		acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(d.Inputs))); err != nil {
		return nil, err
	}
	opts := make([]acp.PermissionOption, len(d.Options))
	for i, o := range d.Options {
		kind := acp.PermissionOptionKindAllowOnce
		if o.Reject {
			kind = acp.PermissionOptionKindRejectOnce
		}
		if o.Kind != "" {
			kind = o.Kind
		}
		opts[i] = acp.PermissionOption{OptionId: acp.PermissionOptionId(o.ID), Name: o.Name, Kind: kind}
	}
	title := d.Title
	resp, err := t.a.editor().RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: acp.SessionId(t.s.id), Options: opts,
		ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(d.ID), Title: &title}})
	if err != nil {
		if ctx.Err() != nil {
			return nil, errCancelled
		}
		return nil, fault.New(fault.Unavailable, "the editor did not answer the permission request: %v", err)
	}
	if resp.Outcome.Selected == nil {
		_ = t.update(ctx, acp.UpdateToolCall(acp.ToolCallId(d.ID), acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
		return nil, errCancelled
	}
	for _, o := range d.Options {
		if string(resp.Outcome.Selected.OptionId) == o.ID {
			err := t.update(ctx, acp.UpdateToolCall(acp.ToolCallId(d.ID), acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
				acp.WithUpdateRawOutput(o.Answer)))
			return o.Answer, err
		}
	}
	return nil, acp.NewInvalidParams(map[string]any{"path": "outcome.optionId",
		"error": fmt.Sprintf("%q is not one of the options offered", resp.Outcome.Selected.OptionId)})
}

// cancelRun cancels a capability run the turn leaves waiting.
func (t *turn) cancelRun(ctx context.Context, runID string) {
	t.cancelWith(ctx, "capability.cancel", runID)
}

// cancelWith cancels run runID with method, whatever ended the turn (the
// turn's context may be done already).
func (t *turn) cancelWith(ctx context.Context, method, runID string) {
	if runID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := t.call(ctx, call(method, map[string]any{"id": runID}, t.s)); err != nil {
		t.a.log.Warn("the run was not cancelled", "run", runID, "error", err)
	}
}

// handedBack is a run's question that has no options: the session's next
// prompt is its answer.
type handedBack struct {
	runID    string
	expected map[string]any
}

// soleString is the name of the expected output's one member when it is a
// string.
func soleString(expected map[string]any) string {
	props, _ := expected["properties"].(map[string]any)
	if len(props) != 1 {
		return ""
	}
	for k, v := range props {
		if asMap(v)["type"] == "string" {
			return k
		}
	}
	return ""
}

// answerOf reads the next prompt as the answer: a JSON object as it is, or
// plain text as the expected output's one string member. The run checks
// the answer against what it expects.
func (h *handedBack) answerOf(text string) (any, error) {
	var m map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &m) == nil && m != nil {
		return m, nil
	}
	if name := soleString(h.expected); name != "" {
		return map[string]any{name: text}, nil
	}
	want, _ := json.Marshal(h.expected)
	return nil, fault.New(fault.Invalid, "run %s waits for a JSON object matching %s; the prompt is not one", h.runID, want).WithDetail("path", "prompt")
}

// handBackText asks the question in the conversation.
func handBackText(p *client.Pending) string {
	q := p.Prompt
	if q == "" {
		q = "Task " + p.Task + " waits for an answer."
	}
	if name := soleString(p.Expected); name != "" {
		return q + "\n\n(Reply with your answer; it becomes " + name + ".)"
	}
	want, _ := json.Marshal(p.Expected)
	return q + "\n\n(Reply with a JSON object matching " + string(want) + ".)"
}
