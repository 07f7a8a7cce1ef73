package validate_test

import (
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/validate"
)

// The spec's documents, verbatim.
const (
	specComplete = `{"type":"operationUpdate","operationId":"fetch-users","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"filter-active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active-users"}}}
{"type":"beginExecution","executionId":"exec-123","operationOrder":["fetch-users","filter-active"]}
`
	specExample1 = `{"type":"operationUpdate","operationId":"fetch-data","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/data","outputPath":"/workflow/data"}}}
{"type":"beginExecution","executionId":"exec-1","operationOrder":["fetch-data"]}
`
	specExample2 = `{"type":"operationUpdate","operationId":"fetch-users","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"filter-active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active-users"}}}
{"type":"beginExecution","executionId":"exec-2","operationOrder":["fetch-users","filter-active"]}
`
	specExample3 = `{"type":"operationUpdate","operationId":"check-count","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/count","outputPath":"/workflow/count"}}}
{"type":"operationUpdate","operationId":"process-if-needed","operation":{"Conditional":{"condition":{"path":"/workflow/count","operator":">","value":0},"ifTrue":["process-data"],"ifFalse":["skip"]}}}
{"type":"beginExecution","executionId":"exec-3","operationOrder":["check-count","process-if-needed"]}
`
	// Example 3 with the two operations it names defined.
	specExample3Fixed = `{"type":"operationUpdate","operationId":"check-count","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/count","outputPath":"/workflow/count"}}}
{"type":"operationUpdate","operationId":"process-if-needed","operation":{"Conditional":{"condition":{"path":"/workflow/count","operator":">","value":0},"ifTrue":["process-data"],"ifFalse":["skip"]}}}
{"type":"operationUpdate","operationId":"process-data","operation":{"StoreData":{"inputPath":"/workflow/count","storage":"localStorage","key":"count"}}}
{"type":"operationUpdate","operationId":"skip","operation":{"Wait":{"duration":0}}}
{"type":"beginExecution","executionId":"exec-3","operationOrder":["check-count","process-if-needed"]}
`
)

// exampleGrants allow what the spec's examples use.
func exampleGrants() *policy.Permissions {
	return &policy.Permissions{Operations: []string{"*"}, Hosts: []string{"api.example.com"}}
}

func TestSpecExamples(t *testing.T) {
	example3Errors := []want{
		{typ: VE, line: 2, path: "operation.Conditional.ifFalse[0]", op: "process-if-needed",
			msg: "ifFalse names operation skip, which is not defined", sugg: "Define operation skip with an operationUpdate before beginExecution"},
		{typ: VE, line: 2, path: "operation.Conditional.ifTrue[0]", op: "process-if-needed",
			msg: "ifTrue names operation process-data, which is not defined", sugg: "Define operation process-data with an operationUpdate before beginExecution"},
	}
	cases := []struct {
		name string
		doc  string
		errs []want
	}{
		{"complete example", specComplete, nil},
		{"example 1", specExample1, nil},
		{"example 2", specExample2, nil},
		{"example 3", specExample3, example3Errors},
		{"example 3 corrected", specExample3Fixed, nil},
	}
	envs := []struct {
		name string
		opts func() validate.Options
	}{
		{"stub catalog", func() validate.Options { return validate.Options{Env: stubEnv(), Permissions: exampleGrants()} }},
		{"no environment", func() validate.Options { return validate.Options{Permissions: exampleGrants()} }},
	}
	for _, env := range envs {
		for _, tc := range cases {
			t.Run(env.name+"/"+tc.name, func(t *testing.T) {
				for _, via := range []struct {
					name string
					r    *validate.Report
				}{
					{"Document", validate.Document([]byte(tc.doc), env.opts())},
					{"Field string", validate.Field(jsonString(tc.doc), env.opts())},
					{"Workflow", validate.Workflow(parseDoc(t, tc.doc), env.opts())},
				} {
					checkProblems(t, via.name+" errors", via.r.Errors, tc.errs)
					checkProblems(t, via.name+" warnings", via.r.Warnings, nil)
					if via.r.Valid != (tc.errs == nil) || via.r.Forbidden() {
						t.Errorf("%s: valid %v forbidden %v", via.name, via.r.Valid, via.r.Forbidden())
					}
					if via.r.Workflow == nil {
						t.Errorf("%s: no workflow in the report", via.name)
					}
				}
			})
		}
	}
}

// Without a grant for api.example.com the spec's examples are forbidden.
func TestSpecExampleForbidden(t *testing.T) {
	r := validate.Document([]byte(specExample2), validate.Options{Env: stubEnv(), Permissions: &policy.Permissions{Hosts: []string{"api.other.com"}}})
	checkProblems(t, "errors", r.Errors, []want{
		{typ: PE, line: 1, path: "operation.ApiCall.url", op: "fetch-users", msg: "host api.example.com is not permitted for this account"},
	})
	if !r.Forbidden() || r.Valid {
		t.Errorf("valid %v forbidden %v", r.Valid, r.Forbidden())
	}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
