package a2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encoder writes canonical JSONL messages, one per line: "type" first, as
// in the spec's examples, then the message's fields in the spec's order;
// strings escaped as encoding/json escapes them, but '<', '>' and '&' kept as
// they are (documents are data, not HTML, and a re-encoded document reads
// like the original); each config compacted onto the line.
type Encoder struct {
	w   io.Writer
	buf []byte
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// Encode writes m as one line, with one Write. A message with neither or
// both parts set, or an operation whose config is not valid JSON, is an
// error and nothing is written.
func (e *Encoder) Encode(m Message) error {
	b, err := appendMessage(e.buf[:0], m)
	if err != nil {
		return err
	}
	e.buf = b
	_, err = e.w.Write(b)
	return err
}

// appendMessage appends m as one line, '\n' included.
func appendMessage(b []byte, m Message) ([]byte, error) {
	switch {
	case m.OperationUpdate != nil && m.BeginExecution != nil:
		return b, errors.New("a2e: message has both an operationUpdate and a beginExecution")
	case m.OperationUpdate != nil:
		u := m.OperationUpdate
		if u.Operation.Name == "" {
			return b, fmt.Errorf("a2e: operation %q has no name", u.OperationID)
		}
		b = append(b, `{"type":"operationUpdate","operationId":`...)
		b = appendString(b, u.OperationID)
		b = append(b, `,"operation":`...)
		var err error
		if b, err = appendOperation(b, u.Operation); err != nil {
			return b, fmt.Errorf("a2e: encoding message: %w", err)
		}
	case m.BeginExecution != nil:
		x := m.BeginExecution
		b = append(b, `{"type":"beginExecution","executionId":`...)
		b = appendString(b, x.ExecutionID)
		b = append(b, `,"operationOrder":[`...)
		for i, id := range x.OperationOrder {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, id)
		}
		b = append(b, ']')
		if x.OnError != "" {
			b = append(b, `,"onError":`...)
			b = appendString(b, x.OnError)
		}
	default:
		return b, errors.New("a2e: empty message")
	}
	return append(b, '}', '\n'), nil
}

// appendOperation appends {"Name": config}, the config compacted ({} when
// there is none).
func appendOperation(b []byte, o Operation) ([]byte, error) {
	b = append(b, '{')
	b = appendQuoted(b, o.Name, true) // as Operation.MarshalJSON writes it
	b = append(b, ':')
	if len(o.Config) == 0 {
		return append(b, '{', '}', '}'), nil
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, o.Config); err != nil {
		return b, err
	}
	return append(buf.Bytes(), '}'), nil
}

// appendString appends s as a JSON string, escaped as encoding/json escapes
// it without HTML escaping. Ids are plain ASCII: those are copied.
func appendString(b []byte, s string) []byte { return appendQuoted(b, s, false) }

// appendQuoted appends s as encoding/json writes it, with or without its
// HTML escaping of '<', '>' and '&'.
func appendQuoted(b []byte, s string, html bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || html && (c == '<' || c == '>' || c == '&') {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// EncodeWorkflow writes wf as a canonical document: its operations in Defined
// order, then its beginExecution. A legacy workflow comes out canonical.
// Nothing is written when a message cannot be encoded.
func EncodeWorkflow(w io.Writer, wf *Workflow) error {
	b, err := appendWorkflow(nil, wf, nil)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// appendWorkflow appends wf's canonical document to b; lineEnd, when not
// nil, is told where each line ends.
func appendWorkflow(b []byte, wf *Workflow, lineEnd func(end int)) ([]byte, error) {
	if wf == nil {
		return b, errors.New("a2e: nil workflow")
	}
	var err error
	for _, id := range wf.Defined {
		def, ok := wf.Operations[id]
		if !ok || def == nil {
			return b, fmt.Errorf("a2e: operation %q is in Defined but not in Operations", id)
		}
		if b, err = appendMessage(b, Message{OperationUpdate: &OperationUpdate{OperationID: id, Operation: def.Operation}}); err != nil {
			return b, err
		}
		if lineEnd != nil {
			lineEnd(len(b))
		}
	}
	begin := wf.Begin
	if b, err = appendMessage(b, Message{BeginExecution: &begin}); err != nil {
		return b, err
	}
	if lineEnd != nil {
		lineEnd(len(b))
	}
	return b, nil
}
