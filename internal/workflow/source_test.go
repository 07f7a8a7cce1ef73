package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func sourceRunner(c workflow.Config) *workflow.Runner {
	c.Deps.Limits = op.DefaultLimits()
	return workflow.New(c)
}

var filterAccount = workflow.Account{ID: "acct", Permissions: policy.Permissions{Operations: []string{"FilterData"}}}

func filterCall(executionID, operator string) *a2e.Workflow {
	cfg := `{"inputPath":"/input/xs","conditions":[{"field":"v","operator":"` + operator + `","value":1}],"outputPath":"/workflow/result"}`
	return a2e.OneOperation("call", executionID, a2e.Operation{Name: "FilterData", Config: json.RawMessage(cfg)})
}

// A workflow built as values is validated and compiled as those values: the
// compiled workflow is the one given, not one decoded from text. Its
// document is what the record keeps, and it compiles the same.
func TestCompileTypedWorkflow(t *testing.T) {
	r := sourceRunner(workflow.Config{})
	wf := filterCall("call-1", ">")
	c, doc, report := r.CompileSource(workflow.Source{Workflow: wf}, filterAccount)
	if report != nil {
		t.Fatalf("report: %+v", report.Errors)
	}
	if c.Workflow() != wf {
		t.Fatal("the workflow was read back from text, not compiled from its values")
	}
	again, report := r.Compile(doc, filterAccount) // a restart compiles the record's document
	if report != nil || again.Workflow().Begin.ExecutionID != "call-1" || again.Workflow().Operations["call"].Operation.Name != "FilterData" {
		t.Fatalf("the document %q compiles to %+v, %+v", doc, again, report)
	}
	// The same call with another execution id is the same plan.
	c2, _, _ := r.CompileSource(workflow.Source{Workflow: filterCall("call-2", ">")}, filterAccount)
	if c2.Plan() != c.Plan() || c2.Workflow().Begin.ExecutionID != "call-2" {
		t.Fatalf("second call: plan shared %v, id %s", c2.Plan() == c.Plan(), c2.Workflow().Begin.ExecutionID)
	}
}

// A workflow built as values is held to every rule a document is: the
// report is the one its document would get, line numbers included. (Over
// MaxLineBytes, the text decoder skips the line, and then reports its
// operation as undefined; the values are still checked: the first problem,
// the one a tool call answers with, is the same.)
func TestTypedWorkflowReportsAsItsDocument(t *testing.T) {
	cases := map[string]struct {
		wf      *a2e.Workflow
		account workflow.Account
		limits  a2e.Limits
		want    string
		first   bool // only the first problem is the same
	}{
		"bad config":  {filterCall("call-1", "~"), filterAccount, a2e.Limits{}, "operator", false},
		"not granted": {filterCall("call-1", ">"), workflow.Account{ID: "acct"}, a2e.Limits{}, "FilterData", false},
		"bad id":      {filterCall("call 1", ">"), filterAccount, a2e.Limits{}, "executionId", false},
		"long line":   {filterCall("call-1", strings.Repeat("x", 200)), filterAccount, a2e.Limits{MaxLineBytes: 150}, "the line is", true},
		"large":       {filterCall("call-1", ">"), filterAccount, a2e.Limits{MaxDocumentBytes: 100}, "larger than the limit", false},
		"messages":    {filterCall("call-1", ">"), filterAccount, a2e.Limits{MaxMessages: 1}, "more than 1 messages", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := sourceRunner(workflow.Config{Validate: validate.Limits{Document: tc.limits}, NoPlanCache: true})
			_, doc, typed := r.CompileSource(workflow.Source{Workflow: tc.wf}, tc.account)
			_, text := r.Compile(doc, tc.account)
			if typed == nil || text == nil {
				t.Fatalf("typed %v, text %v: both must be refused", typed, text)
			}
			if tc.first {
				typed.Errors, text.Errors = typed.Errors[:1], text.Errors[:1]
			}
			got, _ := json.Marshal(typed.Errors)
			want, _ := json.Marshal(text.Errors)
			if string(got) != string(want) || !strings.Contains(string(got), tc.want) {
				t.Fatalf("typed:\n%s\ntext:\n%s", got, want)
			}
		})
	}
}

// A workflow given as a JSON array's messages is read message by message;
// its report and its document are those of the same messages as JSONL.
func TestMessagesReportAsJSONL(t *testing.T) {
	lines := []string{
		`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"v","operator":">","value":1}],"outputPath":"/workflow/r"}}}`,
		`{"type":"operationUpdate","operationId":"g","operation":{"FilterData":{"inputPath":"/workflow/r","conditions":[{"field":"v","operator":"~"}]}},"extra":1}`,
		`{"type":"beginExecution","executionId":"e-1","operationOrder":["f","g","ghost"]}`,
	}
	msgs := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		msgs[i] = json.RawMessage(l)
	}
	r := sourceRunner(workflow.Config{})
	_, doc, fromArray := r.CompileSource(workflow.Source{Messages: msgs}, filterAccount)
	text := strings.Join(lines, "\n") + "\n"
	if string(doc) != text {
		t.Fatalf("document:\n%s", doc)
	}
	fromText := r.Validate([]byte(text), filterAccount)
	got, _ := json.Marshal(fromArray.Errors)
	want, _ := json.Marshal(fromText.Errors)
	if fromArray.Valid || string(got) != string(want) || !strings.Contains(string(got), `"line":2`) || !strings.Contains(string(got), "ghost") {
		t.Fatalf("array:\n%s\ntext:\n%s", got, want)
	}
	// A valid array runs from its messages; its document reads back alike.
	msgs = msgs[:1]
	msgs = append(msgs, json.RawMessage("{\n \"type\": \"beginExecution\", \"executionId\": \"e-2\", \"operationOrder\": [\"f\"]\n}"))
	c, doc, report := r.CompileSource(workflow.Source{Messages: msgs}, filterAccount)
	if report != nil || c.Workflow().Begin.ExecutionID != "e-2" || strings.Count(string(doc), "\n") != 2 {
		t.Fatalf("valid array: %v %q", report, doc)
	}
	if _, report := r.Compile(doc, filterAccount); report != nil {
		t.Fatalf("its document: %+v", report.Errors)
	}
}
