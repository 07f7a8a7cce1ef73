package validate_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
)

// TestMapAcceptsAnObject: TransformData map, like select, takes a single object
// as well as an array, so an object-typed input is no type error; sort still
// needs an array.
func TestMapAcceptsAnObject(t *testing.T) {
	doc := func(transform, config string) []byte {
		return []byte(`{"type":"operationUpdate","operationId":"merge","operation":{"MergeData":{"sources":["/input/a","/input/b"],"strategy":"deepMerge","outputPath":"/workflow/obj"}}}
{"type":"operationUpdate","operationId":"t","operation":{"TransformData":{"inputPath":"/workflow/obj","transform":"` + transform + `","config":` + config + `,"outputPath":"/workflow/out"}}}
{"type":"beginExecution","executionId":"e","operationOrder":["merge","t"]}`)
	}
	if r := validate.Document(doc("map", `{"expression":"item"}`), validate.Options{}); !r.Valid {
		t.Fatalf("map over an object must be valid: %+v", r.Errors)
	}
	r := validate.Document(doc("sort", `{"field":"x"}`), validate.Options{})
	if r.Valid || len(r.Errors) != 1 || r.Errors[0].OperationID != "t" {
		t.Fatalf("sort over an object must be a type error: %+v", r.Errors)
	}
}
