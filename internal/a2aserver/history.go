package a2aserver

import (
	"encoding/json"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/store"
)

// withHistory fills t.History from its run's record: the user's message
// that started the task, as the run keeps it (its input: a text part when
// the input is {"text": ...} alone, else a data part; its messageId the
// one it was sent with), then the agent's status message, if any. The
// run keeps no other message: an agent's task takes one message, and a
// capability's answers are not kept as messages (so a capability task's
// history is its first message and its status). n, when set, keeps only
// the last n messages (0: none), as A2A's historyLength asks.
func withHistory(t *a2a.Task, rec store.Execution, n *int) *a2a.Task {
	var history []*a2a.Message
	if first := inputMessage(t, rec); first != nil {
		history = append(history, first)
	}
	if t.Status.Message != nil {
		history = append(history, t.Status.Message)
	}
	if n != nil && *n >= 0 && *n < len(history) {
		history = history[len(history)-*n:]
	}
	if len(history) == 0 {
		history = nil
	}
	t.History = history
	return t
}

// inputMessage is the user's message of rec's run, rebuilt from its input.
func inputMessage(t *a2a.Task, rec store.Execution) *a2a.Message {
	if len(rec.Input) == 0 {
		return nil
	}
	var input map[string]any
	if err := json.Unmarshal(rec.Input, &input); err != nil || input == nil {
		return nil
	}
	id, ok := strings.CutPrefix(rec.ClientID, clientPrefix)
	if !ok || id == "" {
		id = rec.ID + "/input"
	}
	part := a2a.NewDataPart(input)
	if text, ok := input["text"].(string); ok && len(input) == 1 {
		part = a2a.NewTextPart(text)
	}
	return &a2a.Message{ID: id, Role: a2a.MessageRoleUser, TaskID: t.ID, ContextID: t.ContextID, Parts: a2a.ContentParts{part}}
}
