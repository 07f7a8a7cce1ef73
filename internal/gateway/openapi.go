package gateway

import (
	_ "embed"
	"net/http"

	"github.com/sluicehq/sluice/internal/fault"
)

// openAPI is the OpenAPI 3.1 description of the whole HTTP API. A test checks
// it against the route table and validates real answers with its schemas.
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPI)
}

func notFoundRoute(r *http.Request) *fault.Error {
	return fault.New(fault.NotFound, "no route %s %s", r.Method, r.URL.Path).
		WithSuggestions("See /openapi.json for the API")
}
