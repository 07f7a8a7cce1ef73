package validate_test

import (
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
)

// FuzzDocument: any bytes give a report (never a panic) that is valid JSON and
// consistent: valid exactly when there are no errors, lists never null.
func FuzzDocument(f *testing.F) {
	for _, seed := range []string{
		specComplete, specExample1, specExample2, specExample3, specExample3Fixed,
		twentyOps(),
		doc(upd("a", `{"Loop":{"inputPath":"/workflow/a","operations":["a","b"]}}`), upd("b", `{"Conditional":{"condition":{"path":"/workflow/item","operator":"in","value":"x"},"ifTrue":["a"]}}`), begin("a", "b", "a")),
		doc(upd("f", `{"ApiCall":{"method":"GET","url":"http://[::1]:80/{/workflow/x}","headers":{"A":{"credentialRef":{"id":"k"}}},"body":[{"credentialRef":{"id":"j"}},"{/workflow/y"],"outputPath":"/workflow/a/b"}}`), begin("f")),
		doc(upd("g", `{"InvokeAgent":{"agent":"sum","input":{"a":["{/workflow/x}","t {/input/y}"],"b":{"credentialRef":{"id":"k"}}},"taskId":"t-{/input/y}","timeout":5,"outputPath":"/workflow/o"}}`), upd("h", `{"InvokeAgent":{"agent":"x","input":"{/workflow/o}","retry":{},"outputPath":"/workflow/p"}}`), begin("g", "h")),
		"", "\n\n", "{}", "[]", `{"operationUpdate":{"workflowId":"w","operations":[{"id":"a","operation":{"Wait":{"duration":1}}}]}}` + "\n" + `{"beginExecution":{"workflowId":"w","root":"a"}}`,
	} {
		f.Add([]byte(seed))
	}
	envs := []validate.Options{opts(), {}, {Env: realEnv(), Permissions: grants()}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range envs {
			for _, r := range []*validate.Report{validate.Document(data, o), validate.Field(data, o)} {
				b, err := json.Marshal(r)
				if err != nil || !json.Valid(b) {
					t.Fatalf("report does not marshal: %v", err)
				}
				if r.Errors == nil || r.Warnings == nil {
					t.Fatal("null errors or warnings")
				}
				if r.Valid != (len(r.Errors) == 0) {
					t.Fatalf("valid %v with %d errors", r.Valid, len(r.Errors))
				}
				if r.Valid && r.Forbidden() {
					t.Fatal("valid and forbidden")
				}
			}
		}
	})
}
