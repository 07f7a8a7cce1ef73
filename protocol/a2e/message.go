// Package a2e is the wire format of A2E workflows: JSONL messages, the typed
// configuration of every operation, the path grammar of the data model, and the
// JSON Schemas that describe them. It is a pure codec: it reads and writes bytes and
// knows nothing of how a workflow runs.
package a2e

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Message types.
const (
	TypeOperationUpdate = "operationUpdate"
	TypeBeginExecution  = "beginExecution"
)

// Values of BeginExecution.OnError.
const (
	OnErrorStop     = "stop"
	OnErrorContinue = "continue"
)

// Message is one decoded JSONL line: exactly one of OperationUpdate and
// BeginExecution is set.
type Message struct {
	Line            int // 1-based line in the document; 0 when not from a document
	OperationUpdate *OperationUpdate
	BeginExecution  *BeginExecution
}

// Type is the message's wire type.
func (m Message) Type() string {
	switch {
	case m.OperationUpdate != nil:
		return TypeOperationUpdate
	case m.BeginExecution != nil:
		return TypeBeginExecution
	}
	return ""
}

// OperationUpdate defines or replaces one operation.
type OperationUpdate struct {
	OperationID string    `json:"operationId"`
	Operation   Operation `json:"operation"`
}

// BeginExecution ends a workflow document and names the top-level order.
type BeginExecution struct {
	ExecutionID    string   `json:"executionId"`
	OperationOrder []string `json:"operationOrder"`
	OnError        string   `json:"onError,omitempty"` // "" or "stop" (default), "continue"
}

// Operation is the one-key object {"Name": {config}}. Config is kept raw so the
// document can be re-encoded exactly and decoded into the typed config by Decode.
type Operation struct {
	Name   string
	Config json.RawMessage
}

// MarshalJSON writes {"Name": config}.
func (o Operation) MarshalJSON() ([]byte, error) {
	name, err := json.Marshal(o.Name)
	if err != nil {
		return nil, err
	}
	cfg := o.Config
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}")
	}
	var b bytes.Buffer
	b.WriteByte('{')
	b.Write(name)
	b.WriteByte(':')
	b.Write(cfg)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads {"Name": config}; zero or several keys are an error.
func (o *Operation) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if len(m) != 1 {
		return fmt.Errorf("operation must have exactly one key (the operation name), found %d", len(m))
	}
	for k, v := range m {
		o.Name, o.Config = k, v
	}
	return nil
}

// Workflow is a whole document after decoding: its operations by id (a later
// update replaces an earlier one) and its beginExecution.
type Workflow struct {
	Operations map[string]*Definition // by operationId
	Defined    []string               // operationIds in first-definition order
	Begin      BeginExecution
	BeginLine  int
	// Legacy is set when the document was in the reference implementation's
	// shape (see legacy.go): Begin.ExecutionID then holds its workflowId, which
	// such clients reuse across different documents, so it is no idempotency key.
	Legacy bool
}

// Definition is the last operationUpdate seen for an id.
type Definition struct {
	ID        string
	Operation Operation
	Line      int
}
