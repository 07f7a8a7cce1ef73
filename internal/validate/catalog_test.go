package validate_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/validate"
)

// realEnv is the catalog of real operations. (When op.Builtins exists it lists
// the same registrations.)
func realEnv() *op.Environment {
	return op.NewEnvironment(&op.Deps{Limits: op.DefaultLimits()},
		op.ApiCallOp, op.FilterDataOp, op.TransformDataOp, op.ConditionalOp, op.LoopOp,
		op.StoreDataOp, op.WaitOp, op.MergeDataOp, op.LoadDataOp, op.InvokeAgentOp)
}

func TestRealCatalog(t *testing.T) {
	o := func() validate.Options { return validate.Options{Env: realEnv(), Permissions: grants()} }
	for _, tc := range []struct {
		name string
		doc  string
		errs []want
	}{
		{name: "complete example", doc: specComplete},
		{name: "example 1", doc: specExample1},
		{name: "example 2", doc: specExample2},
		{name: "example 3 corrected", doc: specExample3Fixed},
		{name: "twenty operations", doc: twentyOps()},
		{
			name: "example 3",
			doc:  specExample3,
			errs: []want{
				{typ: VE, line: 2, path: "operation.Conditional.ifFalse[0]", op: "process-if-needed", msg: "skip, which is not defined"},
				{typ: VE, line: 2, path: "operation.Conditional.ifTrue[0]", op: "process-if-needed", msg: "process-data, which is not defined"},
			},
		},
		{
			name: "a factory's config error is placed in the document",
			doc:  doc(upd("w", waitOK), upd("f", `{"FilterData":{"inputPath":"/input/x","conditions":[{"field":"a","operator":"==","value":1}]}}`), begin("w", "f")),
			errs: []want{{typ: VE, line: 2, path: "operation.FilterData.outputPath", op: "f", msg: "outputPath"}},
		},
		{
			name: "exists in FilterData is reported once",
			doc:  doc(upd("f", `{"FilterData":{"inputPath":"/input/x","conditions":[{"field":"a","operator":"exists"}],"outputPath":"/workflow/o"}}`), begin("f")),
			errs: []want{{typ: VE, line: 1, path: "operation.FilterData.conditions[0].operator", op: "f", msg: "exists"}},
		},
		{
			name: "a forbidden host is reported once, by the permission level",
			doc:  doc(upd("f", `{"ApiCall":{"method":"GET","url":"https://api.evil.com/","outputPath":"/workflow/r"}}`), begin("f")),
			errs: []want{{typ: PE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "host api.evil.com is not permitted"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := validate.Document([]byte(tc.doc), o())
			checkProblems(t, "errors", r.Errors, tc.errs)
			checkProblems(t, "warnings", r.Warnings, nil)
		})
	}
}

// Without an account, the factories do not refuse hosts: `sluice validate`
// checks a document on its own.
func TestRealCatalogNoAccount(t *testing.T) {
	r := validate.Document([]byte(doc(
		upd("f", `{"ApiCall":{"method":"GET","url":"https://anywhere.example.net/","headers":{"A":{"credentialRef":{"id":"k"}}},"outputPath":"/workflow/r"}}`),
		upd("a", `{"InvokeAgent":{"agent":"anyone","input":{"r":"{/workflow/r}"},"outputPath":"/workflow/s"}}`),
		begin("f", "a"))), validate.Options{Env: realEnv()})
	checkProblems(t, "errors", r.Errors, nil)
	checkProblems(t, "warnings", r.Warnings, nil)
}

// An InvokeAgent whose agent the account is not granted is a PermissionError
// of the permission level, reported once; its input's reads are checked like
// any operation's.
func TestRealCatalogInvokeAgent(t *testing.T) {
	granted := grants()
	granted.Agents = []string{"summarizer"}
	for _, tc := range []struct {
		name  string
		perms *policy.Permissions
		doc   string
		errs  []want
		warns []want
	}{
		{name: "granted", perms: granted,
			doc: doc(upd("a", `{"InvokeAgent":{"agent":"summarizer","input":{"t":"{/input/t}"},"outputPath":"/workflow/s"}}`), begin("a"))},
		{name: "not granted", perms: grants(),
			doc:  doc(upd("a", `{"InvokeAgent":{"agent":"summarizer","outputPath":"/workflow/s"}}`), begin("a")),
			errs: []want{{typ: PE, line: 1, path: "operation.InvokeAgent.agent", op: "a", msg: "agent summarizer is not permitted"}}},
		{name: "a config error with no grant is reported too", perms: grants(),
			doc: doc(upd("a", `{"InvokeAgent":{"agent":"summarizer","input":[1],"outputPath":"/workflow/s"}}`), begin("a")),
			errs: []want{
				{typ: PE, line: 1, path: "operation.InvokeAgent.agent", op: "a", msg: "agent summarizer is not permitted"},
				{typ: VE, line: 1, path: "operation.InvokeAgent.input", op: "a", msg: "must be a JSON object"},
			}},
		{name: "input reads what no earlier step writes", perms: granted,
			doc:   doc(upd("a", `{"InvokeAgent":{"agent":"summarizer","input":"{/workflow/nothing}","outputPath":"/workflow/s"}}`), begin("a")),
			warns: []want{{typ: DE, line: 1, path: "operation.InvokeAgent", op: "a", msg: "/workflow/nothing"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := validate.Document([]byte(tc.doc), validate.Options{Env: realEnv(), Permissions: tc.perms})
			checkProblems(t, "errors", r.Errors, tc.errs)
			checkProblems(t, "warnings", r.Warnings, tc.warns)
		})
	}
}
