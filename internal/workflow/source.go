package workflow

import (
	"bytes"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Source is a workflow in the form its caller gave it; exactly one field is
// set. Each form is decoded once, by the decoder of that form, and validated
// by the one validator; none is turned into JSONL text to be parsed back.
//
// Each form still yields a document, the bytes an execution record keeps: a
// queued or parked execution is compiled again from them by whichever
// process runs it (after a restart too), GET /executions/{id} shows them,
// and its digest is theirs.
type Source struct {
	// Document is a JSONL document; it is its own document.
	Document []byte
	// Messages are the elements of a JSON array of message objects
	// (RESOLUTIONS), each one object. The document is the messages one a
	// line: a copy, not an encode.
	Messages []json.RawMessage
	// Workflow is built by the server as values (a session's op.X call). Its
	// document is its one encode (a2e.EncodeDocument), which also holds the
	// workflow to a document's bounds.
	Workflow *a2e.Workflow
}

// read is src's document and the check that validates src in its own form.
func (r *Runner) read(src Source) ([]byte, func(validate.Options) *validate.Report) {
	switch {
	case src.Workflow != nil:
		doc, docErrs := a2e.EncodeDocument(src.Workflow, r.limits.Document)
		return doc, func(o validate.Options) *validate.Report { return validate.Values(src.Workflow, docErrs, o) }
	case src.Messages != nil:
		return messageLines(src.Messages), func(o validate.Options) *validate.Report { return validate.Messages(src.Messages, o) }
	}
	return src.Document, func(o validate.Options) *validate.Report { return validate.Document(src.Document, o) }
}

// messageLines is msgs one a line, each line ended by '\n'. A message that
// spans lines (indented) is compacted onto one, so that the document reads
// back as the same messages.
func messageLines(msgs []json.RawMessage) []byte {
	n := 0
	for _, m := range msgs {
		n += len(m) + 1
	}
	var doc bytes.Buffer
	doc.Grow(n)
	for _, m := range msgs {
		if bytes.IndexByte(m, '\n') < 0 || json.Compact(&doc, m) != nil {
			doc.Write(m)
		}
		doc.WriteByte('\n')
	}
	return doc.Bytes()
}
