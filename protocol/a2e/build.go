package a2e

import (
	"bytes"
	"fmt"
)

// OneOperation is the workflow that runs one operation: an operationUpdate
// defining it as operationID, then a beginExecution ordering it. Its lines
// are 1 and 2, the lines the same workflow has as a two-line document, so a
// problem names the same line whichever way the workflow came.
func OneOperation(operationID, executionID string, op Operation) *Workflow {
	return &Workflow{
		Operations: map[string]*Definition{operationID: {ID: operationID, Operation: op, Line: 1}},
		Defined:    []string{operationID},
		Begin:      BeginExecution{ExecutionID: executionID, OperationOrder: []string{operationID}},
		BeginLine:  2,
	}
}

// EncodeDocument writes wf as its canonical document (EncodeWorkflow) and
// reports what Parse would report of those bytes under lim: an id that is no
// id, a message over MaxLineBytes, the document over MaxDocumentBytes, more
// than MaxMessages messages. A workflow built as values is thereby held to
// the bounds of one read from text, without reading the text back.
func EncodeDocument(wf *Workflow, lim Limits) ([]byte, []*Error) {
	lim = lim.withDefaults()
	var lines lineSizes
	if err := EncodeWorkflow(&lines, wf); err != nil {
		return nil, []*Error{{Message: err.Error()}}
	}
	var errs []*Error
	for _, id := range wf.Defined {
		def := wf.Operations[id]
		if e := idProblem(id, def.Line, "operationId", "operationId"); e != nil {
			errs = append(errs, e.withOp(id))
		}
	}
	if e := idProblem(wf.Begin.ExecutionID, wf.BeginLine, "executionId", "executionId"); e != nil {
		errs = append(errs, e)
	}
	var total int64
	for i, n := range lines.sizes {
		line := i + 1
		total += int64(n)
		switch {
		case total > lim.MaxDocumentBytes:
			return lines.buf.Bytes(), append(errs, documentTooLarge(line, lim.MaxDocumentBytes))
		case line > lim.MaxMessages:
			return lines.buf.Bytes(), append(errs, tooManyMessages(line, lim.MaxMessages))
		case n-1 > lim.MaxLineBytes: // without its '\n'
			errs = append(errs, lineTooLong(line, n-1, lim.MaxLineBytes))
		}
	}
	return lines.buf.Bytes(), errs
}

// lineSizes keeps what an Encoder writes and the size of each write: an
// Encoder writes each message, '\n' included, in one Write.
type lineSizes struct {
	buf   bytes.Buffer
	sizes []int
}

func (l *lineSizes) Write(p []byte) (int, error) {
	if len(p) == 0 || p[len(p)-1] != '\n' {
		return 0, fmt.Errorf("a2e: a write of %d bytes that is not one line", len(p))
	}
	l.sizes = append(l.sizes, len(p))
	return l.buf.Write(p)
}
