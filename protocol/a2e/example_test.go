package a2e_test

import (
	"fmt"
	"os"

	"github.com/sluicehq/sluice/protocol/a2e"
)

func ExampleParse() {
	doc := `{"type":"operationUpdate","operationId":"fetch","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}}
{"type":"operationUpdat","operationId":"oops"}
{"type":"beginExecution","executionId":"exec-1","operationOrder":["fetch"]}
`
	wf, errs := a2e.Parse([]byte(doc), a2e.Limits{})
	for _, e := range errs {
		fmt.Printf("%v (path %s) %v\n", e, e.Path, e.Suggestions)
	}
	fmt.Println(wf.Defined, wf.Begin.OperationOrder)
	// Output:
	// line 2: unknown message type "operationUpdat" (path type) [Did you mean "operationUpdate"? Valid types are operationUpdate and beginExecution]
	// [fetch] [fetch]
}

func ExampleEncodeWorkflow() {
	legacy := `{"operationUpdate":{"workflowId":"w","operations":[{"id":"a","operation":{"Wait":{"duration":10}}}]}}
{"beginExecution":{"workflowId":"w","root":"a"}}`
	wf, _ := a2e.Parse([]byte(legacy), a2e.Limits{})
	_ = a2e.EncodeWorkflow(os.Stdout, wf)
	// Output:
	// {"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":10}}}
	// {"type":"beginExecution","executionId":"w","operationOrder":["a"]}
}

func ExampleDecodeConfig() {
	_, err := a2e.DecodeConfig(a2e.Operation{Name: "FilterData", Config: []byte(
		`{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputpath":"/workflow/active"}`)})
	for _, e := range err.(a2e.ErrorList) {
		fmt.Println(e.Message)
	}
	// Output:
	// operation.FilterData.outputpath: unknown field; did you mean outputPath?
	// operation.FilterData.outputPath: missing required field
}
