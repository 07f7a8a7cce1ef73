package e2a

import (
	"fmt"
	"maps"
	"strings"
	"time"
)

// A2AOptions are the optional arguments of EnvelopeFromA2A (the keyword
// arguments of the reference's envelope_from_a2a_send_message).
type A2AOptions struct {
	TaskID, ContextID string // default: the message's taskId / contextId
	Channel           string
	IdentityOrigin    IdentityOrigin // default user
	Converter         string         // default ConverterA2A
	ExtraDetails      map[string]any
	Now               time.Time // converted_at; default time.Now()
}

// EnvelopeFromA2A turns the params of an A2A SendMessage request ({message,
// configuration?, metadata?}) into an envelope (§8
// envelope_from_a2a_send_message): method session/prompt, params {message,
// configuration}, expected_output_modes from configuration.acceptedOutputModes,
// a2a_metadata from metadata (A2A's, never the gateway's), provenance a2a with
// details {kind: "a2a_send_message", abstract_operation: "SendMessage"}.
// Beyond the reference, task_id and context_id fall back to the message's
// taskId / contextId and message_id is the message's messageId, the meaning §4.1
// gives those fields.
func EnvelopeFromA2A(req map[string]any, opt A2AOptions) (*Envelope, error) {
	msg, ok := req["message"].(map[string]any)
	if !ok {
		return nil, &Error{Path: "message", Message: "is required and must be an A2A Message object"}
	}
	var cfg, meta map[string]any
	for key, dst := range map[string]*map[string]any{"configuration": &cfg, "metadata": &meta} {
		switch v := req[key].(type) {
		case nil:
		case map[string]any:
			*dst = v
		default:
			return nil, &Error{Path: key, Message: "must be an object"}
		}
	}
	for key := range req {
		if key != "message" && key != "configuration" && key != "metadata" && key != "tenant" {
			return nil, &Error{Path: key, Message: "unknown field of a SendMessage request", Suggestions: didYouMean(key, []string{"message", "configuration", "metadata"})}
		}
	}
	var modes []string
	if raw, ok := cfg["acceptedOutputModes"]; ok && raw != nil {
		list, ok := raw.([]any)
		if !ok {
			return nil, &Error{Path: "configuration.acceptedOutputModes", Message: "must be an array of strings"}
		}
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, &Error{Path: fmt.Sprintf("configuration.acceptedOutputModes[%d]", i), Message: "must be a string"}
			}
			modes = append(modes, s)
		}
	}
	details := map[string]any{"kind": "a2a_send_message", "abstract_operation": "SendMessage"}
	maps.Copy(details, opt.ExtraDetails)
	e := NewEnvelope()
	e.Provenance = Provenance{SourceProtocol: SourceA2A, Converter: orDefault(opt.Converter, ConverterA2A), ConvertedAt: nowOr(opt.Now), Details: details}
	e.Method = ACPSessionPrompt
	e.TaskID = orDefault(opt.TaskID, str(msg, "taskId", "task_id"))
	e.ContextID = orDefault(opt.ContextID, str(msg, "contextId", "context_id"))
	e.MessageID = str(msg, "messageId", "message_id")
	e.Channel = opt.Channel
	if opt.IdentityOrigin != "" {
		e.IdentityOrigin = opt.IdentityOrigin
	}
	e.ExpectedOutputModes = modes
	e.Params = map[string]any{"message": maps.Clone(msg), "configuration": orEmpty(maps.Clone(cfg))}
	if len(meta) > 0 {
		e.A2AMetadata = maps.Clone(meta)
	}
	return e, nil
}

// str returns the first of keys in m that holds a string.
func str(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

// ResponseToA2A projects a frame onto A2A JSON with exactly one of the keys
// task, message, statusUpdate, artifactUpdate (a StreamResponse, which is also
// the shape of a SendMessage result), or returns nil when the frame has none.
//
//   - a2a.stream_event (§8 e2a_response_to_a2a_stream_payload): projections.a2a
//     when it is already one such key; else body.branch (one of StreamBranches)
//     with body.payload (an object) under the branch's camelCase key;
//   - a2a.task and a2a.message: the body under "task" or "message";
//   - sluice's own kinds, for A2A callers of the gateway: e2a.chunk becomes an
//     artifactUpdate of the artifact "output" (text deltas as text parts, other
//     deltas as data parts; append after the first frame); e2a.complete a final
//     statusUpdate TASK_STATE_COMPLETED whose agent message carries the result;
//     e2a.error a final statusUpdate TASK_STATE_FAILED whose message carries the
//     error message, with code and details in the message's metadata;
//   - any other kind: nil.
//
// Written A2A JSON follows A2A 1.0 (TASK_STATE_*, ROLE_AGENT, parts {text} or
// {data}).
func ResponseToA2A(r *Response) map[string]any {
	switch r.Kind {
	case KindA2AStreamEvent:
		if proj, ok := r.Projections["a2a"].(map[string]any); ok && len(proj) == 1 {
			for k := range proj {
				if k == "task" || k == "message" || k == "statusUpdate" || k == "artifactUpdate" {
					return maps.Clone(proj)
				}
			}
		}
		branch, _ := r.Body["branch"].(string)
		payload, ok := r.Body["payload"].(map[string]any)
		key, known := a2aStreamKeys[branch]
		if !ok || !known {
			return nil
		}
		return map[string]any{key: payload}
	case KindA2ATask:
		return map[string]any{"task": orEmpty(r.Body)}
	case KindA2AMessage:
		return map[string]any{"message": orEmpty(r.Body)}
	case KindChunk:
		part := map[string]any{"data": r.Body["delta"]}
		if s, ok := r.Body["delta"].(string); ok {
			part = map[string]any{"text": s}
		}
		return map[string]any{"artifactUpdate": map[string]any{
			"taskId": r.TaskID, "contextId": r.ContextID,
			"artifact":  map[string]any{"artifactId": "output", "parts": []any{part}},
			"append":    r.Sequence > 0,
			"lastChunk": false,
		}}
	case KindComplete:
		return a2aFinal(r, "TASK_STATE_COMPLETED", map[string]any{"data": r.Body["result"]}, nil)
	case KindError:
		msg, _ := r.Body["message"].(string)
		meta := map[string]any{"code": r.Body["code"], "details": r.Body["details"]}
		return a2aFinal(r, "TASK_STATE_FAILED", map[string]any{"text": msg}, meta)
	}
	return nil
}

func a2aFinal(r *Response, state string, part, meta map[string]any) map[string]any {
	message := map[string]any{"messageId": r.ResponseID, "role": "ROLE_AGENT", "parts": []any{part}}
	if r.TaskID != "" {
		message["taskId"] = r.TaskID
	}
	if r.ContextID != "" {
		message["contextId"] = r.ContextID
	}
	if meta != nil {
		message["metadata"] = meta
	}
	status := map[string]any{"state": state, "message": message}
	if r.Timestamp != nil {
		status["timestamp"] = FormatTimestamp(*r.Timestamp)
	}
	return map[string]any{"statusUpdate": map[string]any{"taskId": r.TaskID, "contextId": r.ContextID, "status": status, "final": true}}
}

// taskOutcome says what an A2A task state means for the frame carrying it:
// terminal states end the stream (completed succeeded; failed, canceled and
// rejected failed); interrupted states (input or auth required) end it too, as
// A2A ends a stream there, and the call succeeded in reaching the agent;
// submitted, working and unknown states are in progress. Both A2A 1.0
// (TASK_STATE_COMPLETED) and 0.x (completed, input-required) spellings are read.
func taskOutcome(state string) (final bool, status Status) {
	s := strings.ToLower(strings.TrimPrefix(state, "TASK_STATE_"))
	s = strings.ReplaceAll(s, "-", "_")
	switch s {
	case "completed":
		return true, StatusSucceeded
	case "failed", "canceled", "cancelled", "rejected":
		return true, StatusFailed
	case "input_required", "auth_required":
		return true, StatusSucceeded
	}
	return false, StatusInProgress
}

// FrameFromA2ATask turns an A2A Task an agent returned into the L2 part of an
// a2a.task frame; its state decides final and status (see taskOutcome). It
// needs an id and status.state.
func FrameFromA2ATask(task map[string]any) (*Response, error) {
	state, err := a2aTaskState(task, "")
	if err != nil {
		return nil, err
	}
	final, status := taskOutcome(state)
	return &Response{IsFinal: final, Status: status, Kind: KindA2ATask, Body: maps.Clone(task),
		TaskID: str(task, "id"), ContextID: str(task, "contextId", "context_id")}, nil
}

// FrameFromA2AMessage turns an A2A Message an agent returned into the L2 part
// of a final, succeeded a2a.message frame (a message answer ends an A2A
// exchange). It needs role and parts.
func FrameFromA2AMessage(msg map[string]any) (*Response, error) {
	if err := a2aCheckMessage(msg, ""); err != nil {
		return nil, err
	}
	return &Response{IsFinal: true, Status: StatusSucceeded, Kind: KindA2AMessage, Body: maps.Clone(msg),
		TaskID: str(msg, "taskId", "task_id"), ContextID: str(msg, "contextId", "context_id")}, nil
}

// FrameFromA2AResult turns the result of an A2A SendMessage ({"task": ...} or
// {"message": ...}) into an a2a.task or a2a.message frame.
func FrameFromA2AResult(result map[string]any) (*Response, error) {
	key, payload, err := a2aOneOf(result, []string{"task", "message"})
	if err != nil {
		return nil, err
	}
	if key == "task" {
		return FrameFromA2ATask(payload)
	}
	return FrameFromA2AMessage(payload)
}

// FrameFromA2AStream turns one A2A StreamResponse into the L2 part of an
// a2a.stream_event frame, body {branch, payload}. A task or status update in a
// terminal or interrupted state ends the stream (see taskOutcome); a message
// ends it too; an artifact update is in progress.
func FrameFromA2AStream(sr map[string]any) (*Response, error) {
	key, payload, err := a2aOneOf(sr, []string{"task", "message", "statusUpdate", "artifactUpdate"})
	if err != nil {
		return nil, err
	}
	r := &Response{Status: StatusInProgress, Kind: KindA2AStreamEvent}
	var branch string
	switch key {
	case "task":
		branch = BranchTask
		state, err := a2aTaskState(payload, key)
		if err != nil {
			return nil, err
		}
		r.IsFinal, r.Status = taskOutcome(state)
		r.TaskID = str(payload, "id")
	case "message":
		branch = BranchMessage
		if err := a2aCheckMessage(payload, key); err != nil {
			return nil, err
		}
		r.IsFinal, r.Status = true, StatusSucceeded
		r.TaskID = str(payload, "taskId", "task_id")
	case "statusUpdate":
		branch = BranchStatusUpdate
		state, err := a2aTaskState(payload, key)
		if err != nil {
			return nil, err
		}
		r.IsFinal, r.Status = taskOutcome(state)
		r.TaskID = str(payload, "taskId", "task_id")
	default:
		branch = BranchArtifactUpdate
		if _, ok := payload["artifact"].(map[string]any); !ok {
			return nil, &Error{Path: "artifactUpdate.artifact", Message: "is required and must be an object"}
		}
		r.TaskID = str(payload, "taskId", "task_id")
	}
	r.ContextID = str(payload, "contextId", "context_id")
	r.Body = map[string]any{"branch": branch, "payload": maps.Clone(payload)}
	return r, nil
}

func a2aOneOf(m map[string]any, keys []string) (string, map[string]any, error) {
	if len(m) != 1 {
		return "", nil, &Error{Message: fmt.Sprintf("must hold exactly one of %s, got %d keys", joinList(keys), len(m))}
	}
	for k, v := range m {
		if !contains(keys, k) {
			return "", nil, &Error{Path: k, Message: "is not one of " + joinList(keys), Suggestions: didYouMean(k, keys)}
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return "", nil, &Error{Path: k, Message: "must be an object"}
		}
		return k, obj, nil
	}
	return "", nil, &Error{Message: "must hold exactly one of " + joinList(keys)} // not reached: len(m) == 1
}

func a2aTaskState(m map[string]any, at string) (string, error) {
	prefix := at
	if prefix != "" {
		prefix += "."
	}
	if at != "statusUpdate" {
		if id, ok := m["id"].(string); !ok || id == "" {
			return "", &Error{Path: prefix + "id", Message: "is required"}
		}
	}
	status, ok := m["status"].(map[string]any)
	if !ok {
		return "", &Error{Path: prefix + "status", Message: "is required and must be an object"}
	}
	state, ok := status["state"].(string)
	if !ok || state == "" {
		return "", &Error{Path: prefix + "status.state", Message: "is required"}
	}
	return state, nil
}

func a2aCheckMessage(m map[string]any, at string) error {
	prefix := at
	if prefix != "" {
		prefix += "."
	}
	if role, ok := m["role"].(string); !ok || role == "" {
		return &Error{Path: prefix + "role", Message: "is required"}
	}
	if _, ok := m["parts"].([]any); !ok {
		return &Error{Path: prefix + "parts", Message: "is required and must be an array"}
	}
	return nil
}
