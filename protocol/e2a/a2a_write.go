package e2a

import (
	"crypto/rand"
	"encoding/hex"
	"maps"
	"strconv"
)

// a2aIDs are the ids A2A JSON written for a frame falls back on when the
// payload has none; A2A 1.0 requires a task's id and contextId, an update's
// taskId and contextId, a message's messageId (and a server message's
// contextId) and an artifact's artifactId. They are derived from the frame, so
// the same frame always gives the same ids:
//
//   - task: the frame's task_id, else its request_id (the task is the request),
//     else its response_id;
//   - context: the frame's context_id, else its session_id (the conversation),
//     else the task id (a task with no context is its own);
//   - message: the frame's response_id (unique per frame), else
//     "<task>-<sequence>"; a message inside the payload adds its path, such as
//     "<response_id>/status.message" or "<response_id>/history[2]";
//   - artifacts: "output" (the artifact sluice streams chunks into), and
//     "output-<i>" for the i-th artifact of a task.
//
// Only a frame built in code without request_id and response_id (never one
// that was decoded: both are required) gets a random task id.
type a2aIDs struct {
	task, context, message string
	knownTask              string // the frame's own task_id: a lone message refers to no minted task
}

func a2aIDsOf(r *Response) a2aIDs {
	task := orDefault(r.TaskID, orDefault(r.RequestID, r.ResponseID))
	if task == "" {
		var b [16]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
		task = "task-" + hex.EncodeToString(b[:])
	}
	msg := orDefault(r.ResponseID, task+"-"+strconv.FormatInt(r.Sequence, 10))
	return a2aIDs{task: task, context: orDefault(r.ContextID, orDefault(r.SessionID, task)), message: msg, knownTask: r.TaskID}
}

// ResponseToA2A projects a frame onto one A2A 1.0 StreamResponse, JSON with
// exactly one of the keys task, message, statusUpdate, artifactUpdate (what a
// SendStreamingMessage stream carries), or returns nil when the frame has none:
//
//   - a2a.stream_event (§8 e2a_response_to_a2a_stream_payload): projections.a2a
//     when it is one such key; else body.branch (one of StreamBranches) with
//     body.payload (an object) under the branch's camelCase key;
//   - a2a.task and a2a.message: the body under "task" or "message";
//   - sluice's own kinds, for A2A callers of the gateway: e2a.chunk becomes an
//     artifactUpdate of the artifact "output" (text deltas as text parts, other
//     deltas as data parts; append after the first frame); e2a.complete a
//     statusUpdate TASK_STATE_COMPLETED whose agent message carries the result
//     (no message when the result is null); e2a.error a statusUpdate
//     TASK_STATE_FAILED whose message carries the error message, with code and
//     details in the message's metadata;
//   - any other kind: nil.
//
// Whatever the source wrote (A2A 0.3 or 1.0) comes out as A2A 1.0 with no id
// empty (see a2aV1 and a2aIDs). For the answer to a SendMessage, which must
// be a Task or a Message, use ResultToA2A.
func ResponseToA2A(r *Response) map[string]any {
	key, payload := a2aPayload(r)
	if key == "" {
		return nil
	}
	w := a2aV1{fill: true, ids: a2aIDsOf(r)}
	return map[string]any{key: w.event(key, payload)}
}

// ResultToA2A projects a frame onto the result of an A2A 1.0 SendMessage:
// {"task": Task} or {"message": Message}, never an update (a2a-go refuses
// anything else: "expected Task or Message"). A status update (which is what
// e2a.complete and e2a.error become) is folded into the Task it updates: id
// and contextId from the update, its status and metadata. An artifact update
// or e2a.chunk, a part of a stream, is no result: nil, as for frames
// ResponseToA2A has nothing for.
func ResultToA2A(r *Response) map[string]any {
	out := ResponseToA2A(r)
	if su, ok := out["statusUpdate"].(map[string]any); ok {
		task := map[string]any{"id": su["taskId"], "contextId": su["contextId"], "status": su["status"]}
		if meta, ok := su["metadata"]; ok {
			task["metadata"] = meta
		}
		return map[string]any{"task": task}
	}
	if _, ok := out["artifactUpdate"]; ok {
		return nil
	}
	return out
}

// a2aPayload picks the StreamResponse key and the payload (as the source wrote
// it) a frame projects onto; "" when it has none.
func a2aPayload(r *Response) (string, map[string]any) {
	switch r.Kind {
	case KindA2AStreamEvent:
		if proj, ok := r.Projections["a2a"].(map[string]any); ok && len(proj) == 1 {
			for k, v := range proj {
				if p, ok := v.(map[string]any); ok && (k == "task" || k == "message" || k == "statusUpdate" || k == "artifactUpdate") {
					return k, p
				}
			}
		}
		branch, _ := r.Body["branch"].(string)
		payload, ok := r.Body["payload"].(map[string]any)
		key, known := a2aStreamKeys[branch]
		if !ok || !known {
			return "", nil
		}
		return key, payload
	case KindA2ATask:
		return "task", r.Body
	case KindA2AMessage:
		return "message", r.Body
	case KindChunk:
		part := map[string]any{"data": r.Body["delta"]}
		if s, ok := r.Body["delta"].(string); ok {
			part = map[string]any{"text": s}
		}
		return "artifactUpdate", map[string]any{
			"artifact":  map[string]any{"artifactId": "output", "parts": []any{part}},
			"append":    r.Sequence > 0,
			"lastChunk": false,
		}
	case KindComplete:
		var parts []any
		if res := r.Body["result"]; res != nil {
			parts = []any{map[string]any{"data": res}}
		}
		return "statusUpdate", a2aOwnStatus(r, "TASK_STATE_COMPLETED", parts, nil)
	case KindError:
		msg, _ := r.Body["message"].(string)
		meta := map[string]any{"code": r.Body["code"], "details": r.Body["details"]}
		return "statusUpdate", a2aOwnStatus(r, "TASK_STATE_FAILED", []any{map[string]any{"text": msg}}, meta)
	}
	return "", nil
}

// a2aOwnStatus is the status update for a final frame of sluice's own; the
// agent message is left out when it has no parts.
func a2aOwnStatus(r *Response, state string, parts []any, meta map[string]any) map[string]any {
	status := map[string]any{"state": state}
	if len(parts) > 0 {
		message := map[string]any{"role": "ROLE_AGENT", "parts": parts}
		setStr(message, "messageId", r.ResponseID)
		if meta != nil {
			message["metadata"] = maps.Clone(meta)
		}
		status["message"] = message
	}
	if r.Timestamp != nil {
		status["timestamp"] = FormatTimestamp(*r.Timestamp)
	}
	return map[string]any{"status": status}
}
