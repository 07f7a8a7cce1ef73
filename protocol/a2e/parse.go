package a2e

import (
	"bytes"
	"encoding/json"
)

// Parse reads a whole JSONL document into a Workflow, collecting every problem
// instead of stopping at the first (up to 100).
//
// The rules (RESOLUTIONS, "Documents"): zero or more operationUpdate messages,
// then exactly one beginExecution, which must be the last message; a later
// operationUpdate with the same operationId replaces the earlier one
// (Workflow.Defined keeps the order of first definition, Definition.Line is the
// line of the last one). Documents in the legacy shape are converted (legacy.go).
//
// Parse checks the structure of messages only; operation names and configs are
// the validator's. The Workflow is never nil: it holds every message that could
// be read, so a validator can go on checking it, but it may be run only when
// there are no problems. Problems that concern the whole document (no
// beginExecution) name its last line; every problem of Parse has a line >= 1.
func Parse(doc []byte, lim Limits) (*Workflow, []*Error) {
	d := newDecoder(bytes.NewReader(doc), lim, min(len(doc)+1, 64<<10))
	a := newAssembler()
	for {
		r, ok := d.next()
		if !ok || a.add(r) {
			break
		}
	}
	return a.finish(max(d.line, 1), &d.ld)
}

// ParseMessages reads a document given as a list of message objects (the REST
// form where "workflow" is a JSON array). A message's line is its 1-based index.
// MaxLineBytes bounds each message and MaxDocumentBytes their total.
func ParseMessages(msgs []json.RawMessage, lim Limits) (*Workflow, []*Error) {
	lim = lim.withDefaults()
	ld := lineDecoder{lim: lim}
	a := newAssembler()
	var total int64
	for i, raw := range msgs {
		line := i + 1
		total += int64(len(raw))
		var rs []result
		switch {
		case total > lim.MaxDocumentBytes:
			rs = []result{{line: line, fatal: true, err: documentTooLarge(line, lim.MaxDocumentBytes)}}
		case len(raw) > lim.MaxLineBytes:
			rs = []result{{line: line,
				err: errorf(line, "", "the message is %d bytes long; the limit is %d bytes", len(raw), lim.MaxLineBytes)}}
		case len(trimSpace(raw)) == 0:
			rs = []result{{line: line, err: errorf(line, "", "the message is empty")}}
		default:
			rs = ld.decode(line, raw)
		}
		stop := false
		for _, r := range rs {
			if a.add(r) {
				stop = true
				break
			}
		}
		if stop {
			break
		}
	}
	return a.finish(max(len(msgs), 1), &ld)
}

// ParseAny reads the REST "workflow" field: a JSON string holding a JSONL
// document, or a JSON array of message objects. Problems with the field itself
// have the path "workflow" and no line.
func ParseAny(field json.RawMessage, lim Limits) (*Workflow, []*Error) {
	lim = lim.withDefaults()
	raw := trimSpace(field)
	fail := func(e *Error) (*Workflow, []*Error) { return newWorkflow(), []*Error{e} }
	tooLarge := func() (*Workflow, []*Error) {
		return fail(errorf(0, "workflow", "the workflow is larger than the limit of %d bytes", lim.MaxDocumentBytes))
	}
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return fail(errorf(0, "workflow", "workflow is required: a string holding JSONL, or an array of message objects"))
	case raw[0] == '"':
		// Escapes take at most 6 bytes per byte of text: anything longer than
		// that is over the limit whatever it holds, and is refused unread.
		if int64(len(raw)) > 6*lim.MaxDocumentBytes+2 {
			return tooLarge()
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fail(errorf(0, "workflow", "workflow is not a valid JSON string: %s", syntaxError(raw)))
		}
		return Parse([]byte(s), lim)
	case raw[0] == '[':
		// The array's own punctuation is small next to its messages; 2x leaves
		// room for indentation and still bounds what is decoded.
		if int64(len(raw)) > 2*lim.MaxDocumentBytes {
			return tooLarge()
		}
		if !json.Valid(raw) {
			return fail(errorf(0, "workflow", "workflow is not valid JSON: %s", syntaxError(raw)))
		}
		items, err := elements(raw)
		if err != nil {
			return fail(errorf(0, "workflow", "workflow is not valid JSON: %v", err))
		}
		msgs := make([]json.RawMessage, len(items))
		for i, it := range items {
			msgs[i] = it
		}
		return ParseMessages(msgs, lim)
	}
	return fail(errorf(0, "workflow", "workflow must be a string holding JSONL or an array of message objects, got %s", jsonKind(raw)))
}

func newWorkflow() *Workflow { return &Workflow{Operations: map[string]*Definition{}} }

// assembler builds a Workflow from a stream of results and checks the order of
// messages.
type assembler struct {
	wf           *Workflow
	errs         []*Error
	beginLine    int  // line of the first beginExecution, valid or not
	lastChecked  int  // last line whose position after beginExecution was reported
	seen         bool // some message (valid or not) was read
	undetermined bool // a line's type could not be told: it may have been the beginExecution
	fatal        bool
}

func newAssembler() *assembler { return &assembler{wf: newWorkflow()} }

// add takes one result; it returns true when reading must stop.
func (a *assembler) add(r result) bool {
	a.seen = true
	if r.fatal {
		a.fatal = true
	}
	if r.typ == "" && r.err != nil {
		a.undetermined = true
	}
	if a.beginLine > 0 && r.typ != "" && r.line > a.beginLine {
		if a.lastChecked != r.line {
			a.lastChecked = r.line
			var e *Error
			if r.typ == TypeBeginExecution {
				e = errorf(r.line, "type", "a second beginExecution; the first is at line %d", a.beginLine).
					suggest("Send exactly one beginExecution, as the last message")
			} else {
				e = errorf(r.line, "type", "a message after beginExecution (line %d); beginExecution must be the last message", a.beginLine).
					suggest("Move every operationUpdate before the beginExecution")
			}
			if r.msg.OperationUpdate != nil {
				e.OperationID = r.msg.OperationUpdate.OperationID
			} else if r.err != nil {
				e.OperationID = r.err.OperationID
			}
			if a.report(e) {
				return true
			}
		}
		if r.err == nil {
			return false // not part of the workflow
		}
	}
	if r.typ == TypeBeginExecution && a.beginLine == 0 {
		a.beginLine = r.line
	}
	if r.err != nil {
		return a.report(r.err) || r.fatal
	}
	switch {
	case r.msg.OperationUpdate != nil:
		u := r.msg.OperationUpdate
		if def, ok := a.wf.Operations[u.OperationID]; ok {
			def.Operation, def.Line = u.Operation, r.line
		} else {
			a.wf.Operations[u.OperationID] = &Definition{ID: u.OperationID, Operation: u.Operation, Line: r.line}
			a.wf.Defined = append(a.wf.Defined, u.OperationID)
		}
	case r.msg.BeginExecution != nil:
		a.wf.Begin, a.wf.BeginLine = *r.msg.BeginExecution, r.line
	}
	return false
}

// report records a problem; it returns true when the report is full.
func (a *assembler) report(e *Error) bool {
	if len(a.errs) == maxErrors {
		a.errs = append(a.errs, errorf(max(e.Line, 1), "", "too many problems; only the first %d are reported", maxErrors))
		return true
	}
	a.errs = append(a.errs, e)
	return false
}

func (a *assembler) finish(lastLine int, ld *lineDecoder) (*Workflow, []*Error) {
	a.wf.Legacy = ld.shape == shapeLegacy
	full := len(a.errs) > maxErrors
	if a.beginLine == 0 && !a.undetermined && !a.fatal && !full {
		if !a.seen && ld.shape == shapeUnknown {
			a.errs = append(a.errs, errorf(1, "", "the document is empty: expected operationUpdate messages, then one beginExecution"))
		} else {
			a.errs = append(a.errs, errorf(lastLine, "", "the document has no beginExecution; it must end with one").
				suggest(`End the document with {"type":"beginExecution","executionId":"...","operationOrder":[...]}`))
		}
	}
	return a.wf, a.errs
}
