package gateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The OpenAPI document names exactly the routes the mux serves, each with the
// gateway method it is dispatched as for its operationId.
func TestOpenAPIMatchesRouteTable(t *testing.T) {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	var documented, served []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
			for _, rt := range routes {
				if openAPIPath(rt.pattern) == path && rt.method == strings.ToUpper(method) && rt.rpc != "" && rt.rpc != op.OperationID {
					t.Errorf("%s %s: operationId %q, but it is dispatched as %q", method, path, op.OperationID, rt.rpc)
				}
			}
		}
	}
	for _, rt := range routes {
		served = append(served, rt.method+" "+openAPIPath(rt.pattern))
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("documented routes\n  %v\nserved routes\n  %v", documented, served)
	}
}

// openAPIPath writes a net/http pattern as OpenAPI does: a rest wildcard
// {name...} is the parameter {name}.
func openAPIPath(pattern string) string { return strings.ReplaceAll(pattern, "...}", "}") }
