package a2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// A workflow built as values encodes to a document that reads back as the
// same workflow, on the same lines.
func TestOneOperationEncodesAsItReads(t *testing.T) {
	wf := a2e.OneOperation("call", "call-1", a2e.Operation{Name: "Wait", Config: json.RawMessage(`{ "duration": 1 }`)})
	doc, errs := a2e.EncodeDocument(wf, a2e.Limits{})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := `{"type":"operationUpdate","operationId":"call","operation":{"Wait":{"duration":1}}}` + "\n" +
		`{"type":"beginExecution","executionId":"call-1","operationOrder":["call"]}` + "\n"
	if string(doc) != want {
		t.Fatalf("document:\n%s", doc)
	}
	back, perrs := a2e.Parse(doc, a2e.Limits{})
	if len(perrs) != 0 {
		t.Fatalf("parse: %v", perrs)
	}
	assertSameWorkflow(t, wf, back)
	if back.Operations["call"].Line != wf.Operations["call"].Line || back.BeginLine != wf.BeginLine {
		t.Fatalf("lines: %d %d, read %d %d", wf.Operations["call"].Line, wf.BeginLine, back.Operations["call"].Line, back.BeginLine)
	}
}

// EncodeDocument reports what Parse reports of the same bytes: ids, and the
// bounds of lines, documents and messages.
func TestEncodeDocumentReportsAsParse(t *testing.T) {
	long := a2e.Operation{Name: "Wait", Config: json.RawMessage(`{"note":"` + strings.Repeat("x", 300) + `"}`)}
	for _, tc := range []struct {
		wf  *a2e.Workflow
		lim a2e.Limits
	}{
		{a2e.OneOperation("call", "call 1", a2e.Operation{Name: "Wait"}), a2e.Limits{}},
		{a2e.OneOperation("c.1", "call-1", a2e.Operation{Name: "Wait"}), a2e.Limits{}},
		{a2e.OneOperation("call", strings.Repeat("e", a2e.MaxIDLength+1), a2e.Operation{Name: "Wait"}), a2e.Limits{}},
		{a2e.OneOperation("call", "call-1", long), a2e.Limits{MaxLineBytes: 200}},
		{a2e.OneOperation("call", "call-1", long), a2e.Limits{MaxDocumentBytes: 300}},
		{a2e.OneOperation("call", "call-1", a2e.Operation{Name: "Wait"}), a2e.Limits{MaxMessages: 1}},
	} {
		doc, errs := a2e.EncodeDocument(tc.wf, tc.lim)
		_, perrs := a2e.Parse(doc, tc.lim)
		if len(errs) == 0 || fmt.Sprint(errs[0]) != fmt.Sprint(perrs[0]) {
			t.Errorf("%q:\nencode: %v\nparse:  %v", doc, errs, perrs)
		}
	}
	if _, errs := a2e.EncodeDocument(nil, a2e.Limits{}); len(errs) != 1 {
		t.Fatalf("nil workflow: %v", errs)
	}
}
