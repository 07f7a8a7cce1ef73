package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// itemID is the queue item id of a task or its result: run_id/task_id, or
// its SHA-256 when that is over the queue's id bound.
func itemID(runID, taskID string) string {
	id := runID + "/" + taskID
	if len(id) <= queue.MaxIDBytes {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// resultOf turns what the invoker returned into a result message.
func resultOf(t *agenthttp.TaskMessage, out json.RawMessage, err error) agenthttp.ResultMessage {
	r := agenthttp.ResultMessage{RunID: t.RunID, TaskID: t.TaskID, CorrelationID: t.CorrelationID}
	if err == nil {
		r.Status, r.OutputData = agenthttp.ResultSuccess, out
		if len(r.OutputData) == 0 {
			r.OutputData = json.RawMessage("null")
		}
		return r
	}
	fe := fault.From(err)
	// The public message only: the invoker has scrubbed the agent's
	// credentials out of it, and the cause stays in this process's log.
	msg := fe.Message
	r.Status, r.OutputData, r.ErrorMessage, r.ErrorCode = agenthttp.ResultFailure, json.RawMessage("null"), &msg, fe.Kind.String()
	// The details are public by the fault's contract; a waiting A2A task's
	// question and ids travel in them.
	if len(fe.Details) > 0 {
		if b, err := json.Marshal(fe.Details); err == nil {
			r.ErrorDetails = b
		}
	}
	return r
}

// errorOf turns a failed result back into the error the caller would have
// had calling the agent directly: the kind from error_code (Upstream when a
// producer did not set one), the message from error_message.
func errorOf(r *agenthttp.ResultMessage, agentName string) *fault.Error {
	kind := fault.Upstream
	if k, ok := fault.KindNamed(r.ErrorCode); ok {
		kind = k
	}
	msg := "agent " + agentName + " failed without saying why"
	if r.ErrorMessage != nil && *r.ErrorMessage != "" {
		msg = *r.ErrorMessage
	}
	fe := fault.New(kind, "%s", msg)
	if len(r.ErrorDetails) > 0 {
		_ = json.Unmarshal(r.ErrorDetails, &fe.Details) // an object: the decoder checked
	}
	return fe.WithDetail("agent", agentName).WithDetail("taskId", r.TaskID)
}
