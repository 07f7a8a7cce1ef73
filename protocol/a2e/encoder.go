package a2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encoder writes canonical JSONL messages, one per line.
type Encoder struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{w: w}
	e.enc = json.NewEncoder(&e.buf)
	// Documents are data, not HTML: keep '<', '>' and '&' as they are, so a
	// re-encoded document reads like the original.
	e.enc.SetEscapeHTML(false)
	return e
}

// The wire forms, with "type" first as in the spec's examples.
type wireUpdate struct {
	Type        string    `json:"type"`
	OperationID string    `json:"operationId"`
	Operation   Operation `json:"operation"`
}

type wireBegin struct {
	Type           string   `json:"type"`
	ExecutionID    string   `json:"executionId"`
	OperationOrder []string `json:"operationOrder"`
	OnError        string   `json:"onError,omitempty"`
}

// Encode writes m as one line. A message with neither or both parts set, or an
// operation whose config is not valid JSON, is an error and nothing is written.
func (e *Encoder) Encode(m Message) error {
	var v any
	switch {
	case m.OperationUpdate != nil && m.BeginExecution != nil:
		return errors.New("a2e: message has both an operationUpdate and a beginExecution")
	case m.OperationUpdate != nil:
		u := m.OperationUpdate
		if u.Operation.Name == "" {
			return fmt.Errorf("a2e: operation %q has no name", u.OperationID)
		}
		v = wireUpdate{TypeOperationUpdate, u.OperationID, u.Operation}
	case m.BeginExecution != nil:
		b := m.BeginExecution
		order := b.OperationOrder
		if order == nil {
			order = []string{}
		}
		v = wireBegin{TypeBeginExecution, b.ExecutionID, order, b.OnError}
	default:
		return errors.New("a2e: empty message")
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil { // Encode ends the line with '\n'
		return fmt.Errorf("a2e: encoding message: %w", err)
	}
	_, err := e.w.Write(e.buf.Bytes())
	return err
}

// EncodeWorkflow writes wf as a canonical document: its operations in Defined
// order, then its beginExecution. A legacy workflow comes out canonical.
func EncodeWorkflow(w io.Writer, wf *Workflow) error {
	if wf == nil {
		return errors.New("a2e: nil workflow")
	}
	enc := NewEncoder(w)
	for _, id := range wf.Defined {
		def, ok := wf.Operations[id]
		if !ok || def == nil {
			return fmt.Errorf("a2e: operation %q is in Defined but not in Operations", id)
		}
		if err := enc.Encode(Message{OperationUpdate: &OperationUpdate{OperationID: id, Operation: def.Operation}}); err != nil {
			return err
		}
	}
	begin := wf.Begin
	return enc.Encode(Message{BeginExecution: &begin})
}
