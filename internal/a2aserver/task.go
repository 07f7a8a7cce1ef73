package a2aserver

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// A task is a run of a one-step agent workflow whose name is namePrefix
// followed by the agent's name and whose workflow_id is the task's
// contextId: the run's record keeps both, so a task reads the same on
// every gateway and after a restart.
const (
	namePrefix = "a2a:"
	stepID     = "call"
	// clientPrefix scopes a message's messageId among the account's
	// client ids (REST callers choose theirs freely).
	clientPrefix = "a2a:"
	// outputArtifact is the id of the artifact holding the agent's output.
	outputArtifact a2a.ArtifactID = "output"
)

// stateOf is the A2A state of a run's status. A call refused by policy
// before its run exists is answered with an error (see refused); a run that
// policy refused once it ran is REJECTED (taskState).
func stateOf(s store.Status) a2a.TaskState {
	switch s {
	case store.StatusQueued:
		return a2a.TaskStateSubmitted
	case store.StatusRunning:
		return a2a.TaskStateWorking
	case store.StatusWaiting:
		return a2a.TaskStateInputRequired
	case store.StatusSuccess:
		return a2a.TaskStateCompleted
	case store.StatusCancelled:
		return a2a.TaskStateCanceled
	}
	return a2a.TaskStateFailed // failed, partial
}

// taskState is the A2A state of a run that ended with errs: a failure
// whose first error is a PermissionError (a grant revoked while the task
// waited in the queue, a capability's policy) is REJECTED.
func taskState(status store.Status, errs []fault.Object) a2a.TaskState {
	s := stateOf(status)
	if s == a2a.TaskStateFailed && len(errs) > 0 && errs[0].Type == fault.PermissionError {
		return a2a.TaskStateRejected
	}
	return s
}

// agentOf is the agent a run calls, when it is an A2A task.
func agentOf(r *agentflow.Run) (string, bool) {
	return strings.CutPrefix(r.Name, namePrefix)
}

// taskOf is run r as an A2A task: its state, the agent's output as a
// DataPart artifact once it succeeded, and a status message that says
// what happened in words (the first error of a run that failed).
func taskOf(r *agentflow.Run) *a2a.Task {
	t := &a2a.Task{ID: a2a.TaskID(r.RunID), ContextID: r.WorkflowID}
	t.Status = a2a.TaskStatus{State: taskState(r.Status, r.Errors), Timestamp: updatedAt(r)}
	agent, _ := agentOf(r)
	t.Metadata = map[string]any{"agent": agent, "run_status": string(r.Status)}
	if r.Status == store.StatusSuccess {
		t.Artifacts = []*a2a.Artifact{artifactOf(r.Output)}
	}
	if text := statusText(r); text != "" {
		t.Status.Message = &a2a.Message{ID: r.RunID + "/" + string(r.Status), Role: a2a.MessageRoleAgent,
			TaskID: t.ID, ContextID: t.ContextID, Parts: a2a.ContentParts{a2a.NewTextPart(text)}}
	}
	if q := questionOf(r); q != nil {
		t.Status.Message = &a2a.Message{ID: r.RunID + "/" + string(r.Status), Role: a2a.MessageRoleAgent,
			TaskID: t.ID, ContextID: t.ContextID, Parts: q}
	}
	return t
}

// questionOf is what a waiting run's agent asks, as the parts of the
// task's status message: the question's text, and its whole request as
// data (the agent, its own task's ids). nil: the run does not wait on an
// agent.
func questionOf(r *agentflow.Run) a2a.ContentParts {
	p, ok := r.Pending.(map[string]any)
	if r.Status != store.StatusWaiting || !ok {
		return nil
	}
	text := "the agent asks for input"
	if q, ok := p["question"].(map[string]any); ok {
		if s, ok := q["text"].(string); ok && s != "" {
			text = s
		}
	}
	return a2a.ContentParts{a2a.NewTextPart(text), a2a.NewDataPart(p)}
}

func updatedAt(r *agentflow.Run) *time.Time {
	switch {
	case r.FinishedAt != nil:
		return r.FinishedAt
	case r.StartedAt != nil:
		return r.StartedAt
	}
	c := r.CreatedAt
	return &c
}

// artifactOf is the agent's output as one DataPart.
func artifactOf(output json.RawMessage) *a2a.Artifact {
	var v any
	if err := json.Unmarshal(output, &v); err != nil {
		v = nil
	}
	return &a2a.Artifact{ID: outputArtifact, Name: "output", Parts: a2a.ContentParts{a2a.NewDataPart(v)}}
}

// statusText says a final run's outcome in words.
func statusText(r *agentflow.Run) string {
	switch r.Status {
	case store.StatusSuccess:
		return "the agent answered"
	case store.StatusCancelled:
		return "the task was cancelled"
	case store.StatusFailed, store.StatusPartial:
		if len(r.Errors) > 0 {
			return r.Errors[0].Message
		}
		return "the agent failed"
	}
	return ""
}

// a2aError is err as the A2A error of a call about a task (fault's kinds
// to a2a-go's errors; the message is fault's public one).
func a2aError(err error) error {
	fe := fault.From(err)
	var base error
	switch fe.Kind {
	case fault.NotFound:
		base = a2a.ErrTaskNotFound
	case fault.Invalid, fault.TooLarge:
		base = a2a.ErrInvalidParams
	case fault.PermissionDenied:
		base = a2a.ErrUnauthorized
	case fault.Unauthenticated:
		base = a2a.ErrUnauthenticated
	case fault.Conflict:
		base = a2a.ErrTaskNotCancelable
	case fault.Unavailable:
		base = a2a.ErrUnsupportedOperation
	default:
		base = a2a.ErrInternalError
	}
	return a2a.NewError(base, fe.Message)
}
