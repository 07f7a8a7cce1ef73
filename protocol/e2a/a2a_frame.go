package e2a

import (
	"fmt"
	"maps"
	"strings"
)

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
