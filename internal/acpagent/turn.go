package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// errCancelled ends a turn that the editor cancelled (a permission request
// answered "cancelled" as well as session/cancel).
var errCancelled = errors.New("the turn was cancelled")

// turn is one prompt's state: the session, the tool calls announced so far
// (a tool delta first seen is a tool_call, later ones tool_call_update)
// and whether any text went out (else the final output is sent whole).
type turn struct {
	a        *Agent
	s        *session
	tools    map[string]bool
	sentText bool
}

// update sends one session/update of the turn's session.
func (t *turn) update(ctx context.Context, u acp.SessionUpdate) error {
	return t.a.editor().SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(t.s.id), Update: u})
}

// say sends text as one agent_message_chunk.
func (t *turn) say(ctx context.Context, text string) error {
	if text == "" {
		return nil
	}
	t.sentText = true
	return t.update(ctx, acp.UpdateAgentMessageText(text))
}

// call makes one E2A call, sending its chunks as session updates, and
// returns the final frame's result; an e2a.error frame is returned as a
// *callError.
func (t *turn) call(ctx context.Context, env *e2a.Envelope) (any, error) {
	return t.callEach(ctx, env, func(ctx context.Context, body map[string]any) error {
		u, ok, err := updateOf(body, t.tools)
		if err != nil {
			// A malformed progress frame is the agent's defect; the
			// turn goes on and the final frame still counts.
			t.a.log.Warn("a chunk has no ACP update", "method", env.Method, "error", err)
			return nil
		}
		if !ok {
			return nil
		}
		if u.AgentMessageChunk != nil {
			t.sentText = true
		}
		return t.update(ctx, u)
	})
}

// callEach is call with each chunk's body handed to chunk.
func (t *turn) callEach(ctx context.Context, env *e2a.Envelope, chunk func(context.Context, map[string]any) error) (any, error) {
	var final *e2a.Response
	err := t.a.o.Caller.Call(ctx, env, e2a.SinkFunc(func(r *e2a.Response) error {
		if r.IsFinal {
			final = r
			return nil
		}
		if r.Kind != e2a.KindChunk {
			return nil
		}
		return chunk(ctx, r.Body)
	}))
	if err != nil {
		return nil, err
	}
	if final == nil {
		return nil, fault.New(fault.Unavailable, "%s ended without its final frame", env.Method)
	}
	if final.Kind == e2a.KindError {
		return nil, faultOf(final.Body)
	}
	return resultOf(final.Body["result"]), nil
}

// resultOf is a final frame's result as JSON values: in process it is the
// service's own Go value (a struct, a json.RawMessage), over HTTP it was
// decoded from JSON already.
func resultOf(v any) any {
	switch v.(type) {
	case nil, map[string]any, []any, string, float64, bool:
		return v
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil
		}
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return string(raw)
	}
	return out
}

// callError is a refusal or failure an e2a.error frame carried: its code
// (a kind, or another code of fault's table), its public message and its
// suggestions; nothing else of the body is sent on.
type callError struct {
	code, message string
	suggestions   []string
	// pending is what the agent asks when the call ended because it waits
	// for its caller (details.inputRequired).
	pending *op.AgentPending
}

func (e *callError) Error() string { return e.code + ": " + e.message }

func faultOf(body map[string]any) *callError {
	code, _ := body["code"].(string)
	msg, _ := body["message"].(string)
	if msg == "" {
		msg = "the call failed"
	}
	e := &callError{code: code, message: msg}
	// In process the details are the service's own Go value: read as
	// JSON, as over HTTP.
	if d, ok := resultOf(body["details"]).(map[string]any); ok {
		if inner, ok := d["details"].(map[string]any); ok {
			e.pending, _ = op.AgentPendingFrom(inner)
		}
		if ss, ok := d["suggestions"].([]any); ok {
			for _, s := range ss {
				if str, ok := s.(string); ok {
					e.suggestions = append(e.suggestions, str)
				}
			}
		}
	}
	return e
}

// rpcError is err as ACP's JSON-RPC error: a refusal or failure by its
// code's row in fault's table (the ACP column), with its public message and
// its code in data; an acp.RequestError as it is; anything else an
// internal error whose message is safe to show (the callers' errors are
// made so: no key, no internal cause).
func rpcError(err error) error {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re
	}
	ce, ok := err.(*callError)
	if !ok {
		if fe, isFault := fault.As(err); isFault {
			ce = &callError{code: fe.Kind.String(), message: fe.Message, suggestions: fe.Suggestions}
		} else {
			ce = &callError{code: fault.Internal.String(), message: err.Error()}
		}
	}
	data := map[string]any{"code": ce.code}
	if len(ce.suggestions) > 0 {
		data["suggestions"] = ce.suggestions
	}
	return &acp.RequestError{Code: fault.RowOf(ce.code).ACP, Message: ce.message, Data: data}
}

// updateOf maps the body of one e2a.chunk frame, {delta_kind, delta}, onto
// the session update it becomes (ok false: none, for a custom delta ACP has
// no update for):
//
//   - text: delta a string → agent_message_chunk;
//   - reasoning: delta a string → agent_thought_chunk;
//   - tool: delta {toolCallId, title, kind, status, content, locations,
//     rawInput, rawOutput} → tool_call the first time its toolCallId is
//     seen (in seen), tool_call_update after;
//   - custom: delta {type: "plan", entries} → plan; other types → none.
//
// The objects are checked by the SDK's own types, so a delta the editor
// could not read is an error naming what is wrong.
func updateOf(body map[string]any, seen map[string]bool) (acp.SessionUpdate, bool, error) {
	kind, _ := body["delta_kind"].(string)
	delta := body["delta"]
	switch kind {
	case "text", "reasoning":
		s, ok := delta.(string)
		if !ok {
			return acp.SessionUpdate{}, false, fmt.Errorf("a %s chunk's delta must be a string", kind)
		}
		if kind == "text" {
			return acp.UpdateAgentMessageText(s), true, nil
		}
		return acp.UpdateAgentThoughtText(s), true, nil
	case "tool":
		d, ok := delta.(map[string]any)
		if !ok {
			return acp.SessionUpdate{}, false, errors.New("a tool chunk's delta must be an object")
		}
		id, _ := d["toolCallId"].(string)
		if id == "" {
			return acp.SessionUpdate{}, false, errors.New("a tool chunk's delta.toolCallId must be a non-empty string")
		}
		u := pick(d, "toolCallId", "title", "kind", "status", "content", "locations", "rawInput", "rawOutput")
		if seen[id] {
			u["sessionUpdate"] = "tool_call_update"
		} else {
			u["sessionUpdate"] = "tool_call"
			if _, ok := u["title"]; !ok {
				u["title"] = id
			}
		}
		up, err := decodeUpdate(u)
		if err == nil {
			seen[id] = true
		}
		return up, err == nil, err
	case "custom":
		d, _ := delta.(map[string]any)
		if d == nil || d["type"] != "plan" {
			return acp.SessionUpdate{}, false, nil
		}
		u := pick(d, "entries")
		u["sessionUpdate"] = "plan"
		up, err := decodeUpdate(u)
		return up, err == nil, err
	}
	return acp.SessionUpdate{}, false, fmt.Errorf("delta_kind %q is not one of text, reasoning, tool, custom", kind)
}

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// decodeUpdate reads u through the SDK's SessionUpdate and its checks.
func decodeUpdate(u map[string]any) (acp.SessionUpdate, error) {
	raw, err := json.Marshal(u)
	if err != nil {
		return acp.SessionUpdate{}, err
	}
	var up acp.SessionUpdate
	if err := json.Unmarshal(raw, &up); err != nil {
		return acp.SessionUpdate{}, fmt.Errorf("%s: %v", u["sessionUpdate"], err)
	}
	if err := up.Validate(); err != nil {
		return acp.SessionUpdate{}, fmt.Errorf("%s: %v", u["sessionUpdate"], err)
	}
	// The SDK reads some objects it cannot write (a content block of a type
	// it does not know): what cannot be sent is refused here, not in the
	// middle of the connection's write.
	if _, err := json.Marshal(up); err != nil {
		return acp.SessionUpdate{}, fmt.Errorf("%s: %v", u["sessionUpdate"], err)
	}
	return up, nil
}

// outputText is the text of an output: a string is itself, an object's
// "text" member when it is a string, anything else its JSON, indented.
func outputText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case map[string]any:
		if s, ok := x["text"].(string); ok {
			return s
		}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
