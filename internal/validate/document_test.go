package validate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
)

// Documents go through protocol/a2e's decoder; its problems come first and do not
// cause knock-on reports.
func TestDocument(t *testing.T) {
	cases := []struct {
		name  string
		doc   string
		errs  []want
		warns []want
	}{
		{
			name: "a line that is not JSON: its id is unknown, so the order's reference is reported",
			doc:  doc(`{"type":"operationUpdate","operationId":"a",`, upd("w", waitOK), begin("a", "w")),
			errs: []want{
				{typ: VE, line: 1, msg: "invalid JSON"},
				{typ: VE, line: 3, path: "operationOrder[0]", msg: "operation a, which is not defined"},
			},
		},
		{
			name: "an operation with two keys; the order does not report it as undefined",
			doc:  doc(upd("a", `{"Wait":{"duration":1},"FilterData":{}}`), begin("a")),
			errs: []want{{typ: VE, line: 1, path: "operation", op: "a", msg: "exactly one key"}},
		},
		{
			name: "no beginExecution: no knock-on order problems",
			doc:  doc(upd("a", waitOK)),
			errs: []want{{typ: VE, line: 1, msg: "no beginExecution"}},
		},
		{
			name: "an empty operationOrder is the decoder's report",
			doc:  doc(upd("a", waitOK), begin()),
			errs: []want{{typ: VE, line: 2, path: "operationOrder", msg: "at least one item"}},
		},
		{
			name: "decoder and validator problems together, sorted by line",
			doc: doc(upd("a", `{"FilterDatas":{}}`), `{"type":"operationUpdat","operationId":"b"}`,
				upd("c", `{"Wait":{"duration":-1}}`), begin("a", "c", "zz")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.FilterDatas", op: "a", msg: "unknown operation", sugg: "did you mean FilterData?"},
				{typ: VE, line: 2, path: "type", msg: "operationUpdat"},
				{typ: VE, line: 3, path: "operation.Wait.duration", op: "c", msg: "duration must be between"},
				{typ: VE, line: 4, path: "operationOrder[2]", msg: "operationOrder names operation zz, which is not defined"},
			},
		},
		{
			name: "an empty document",
			doc:  "",
			errs: []want{{typ: VE, line: 1, msg: "empty"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := validate.Document([]byte(tc.doc), opts())
			checkProblems(t, "errors", r.Errors, tc.errs)
			checkProblems(t, "warnings", r.Warnings, tc.warns)
			if r.Valid {
				t.Error("valid")
			}
		})
	}
}

func TestField(t *testing.T) {
	arr, _ := json.Marshal([]json.RawMessage{
		json.RawMessage(upd("fetch-users", fetchUsers)),
		json.RawMessage(upd("filter-active", strings.Replace(filterActive, "/workflow/users", "/workflow/usres", 1))),
		json.RawMessage(begin("fetch-users", "filter-active")),
	})
	r := validate.Field(arr, opts())
	checkProblems(t, "errors", r.Errors, nil)
	checkProblems(t, "warnings", r.Warnings, []want{{typ: DE, line: 2, path: "operation.FilterData.inputPath", op: "filter-active",
		msg: "reads /workflow/usres", sugg: "did you mean /workflow/users?"}})

	r = validate.Field(json.RawMessage(`42`), opts())
	checkProblems(t, "errors", r.Errors, []want{{typ: VE, path: "workflow", msg: "workflow must be a string"}})

	r = validate.Field(nil, opts())
	checkProblems(t, "errors", r.Errors, []want{{typ: VE, path: "workflow", msg: "workflow is required"}})
}

// A document over the limit is refused by the decoder, whatever it holds.
func TestDocumentLimits(t *testing.T) {
	o := opts()
	o.Limits.Document.MaxDocumentBytes = 100
	r := validate.Document([]byte(specComplete), o)
	if r.Valid || !containsMsg(r, "larger than the limit") {
		t.Errorf("want a size error, got %s", dump(r.Errors))
	}
}

func containsMsg(r *validate.Report, frag string) bool {
	for _, e := range r.Errors {
		if strings.Contains(e.Message, frag) {
			return true
		}
	}
	return false
}

// The reference implementation's legacy shape validates like the spec's.
func TestLegacyDocument(t *testing.T) {
	legacy := `{"operationUpdate":{"workflowId":"w","operations":[` +
		`{"id":"fetch-users","operation":` + fetchUsers + `},` +
		`{"id":"filter-active","operation":` + filterActive + `},` +
		`{"id":"bad","operation":{"FilterDatas":{}}}]}}` + "\n" +
		`{"beginExecution":{"workflowId":"w","root":"fetch-users"}}` + "\n"
	r := validate.Document([]byte(legacy), opts())
	if r.Workflow == nil || !r.Workflow.Legacy {
		t.Fatalf("not read as legacy: %+v", r.Workflow)
	}
	checkProblems(t, "errors", r.Errors, []want{{typ: VE, line: 1, path: "operation.FilterDatas", op: "bad", msg: "unknown operation", sugg: "did you mean FilterData?"}})
	checkProblems(t, "warnings", r.Warnings, nil)
}
