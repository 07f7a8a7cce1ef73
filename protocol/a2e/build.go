package a2e

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
	if wf == nil {
		return nil, []*Error{{Message: "a2e: nil workflow"}}
	}
	size := 128 + len(wf.Begin.ExecutionID)
	for _, def := range wf.Operations {
		if def != nil {
			size += 64 + len(def.ID) + len(def.Operation.Name) + len(def.Operation.Config)
		}
	}
	ends := make([]int, 0, len(wf.Defined)+1)
	doc, err := appendWorkflow(make([]byte, 0, size), wf, func(end int) { ends = append(ends, end) })
	if err != nil {
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
	start := 0
	for i, end := range ends {
		line, n := i+1, end-start-1 // without its '\n'
		start = end
		switch {
		case int64(end) > lim.MaxDocumentBytes:
			return doc, append(errs, documentTooLarge(line, lim.MaxDocumentBytes))
		case line > lim.MaxMessages:
			return doc, append(errs, tooManyMessages(line, lim.MaxMessages))
		case n > lim.MaxLineBytes:
			errs = append(errs, lineTooLong(line, n, lim.MaxLineBytes))
		}
	}
	return doc, errs
}
