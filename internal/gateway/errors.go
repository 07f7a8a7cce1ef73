package gateway

import (
	"fmt"
	"math"
	"net/http"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/validate"
)

// Error codes of e2a.error frames beyond the fault kinds' names.
const (
	// codeInvalidWorkflow: the document did not validate; details is the
	// validate response {valid: false, errors, warnings}, which REST sends as is
	// with 400 (RESOLUTIONS).
	codeInvalidWorkflow = "invalid_workflow"
	// codeForbiddenWorkflow: validation found a permission problem; details is
	// the first PermissionError object, sent by REST with 403.
	codeForbiddenWorkflow = "forbidden_workflow"
)

// limitError is a refused request; its frame's details are the spec's 429 body.
type limitError struct{ st LimitStatus }

func (e *limitError) Error() string { return e.st.Message }

// reportError is a workflow that did not validate.
type reportError struct{ report *validate.Report }

func (e *reportError) Error() string { return "the workflow is not valid" }

// errorBody turns an error into an e2a.error frame's body: a stable code, a
// message safe to show, and details that hold the spec's error object (or, for
// the two cases above, the body REST sends).
func errorBody(err error) (code, message string, details any) {
	switch e := err.(type) {
	case *limitError:
		secs := int(math.Ceil(e.st.RetryAfter.Seconds()))
		return fault.RateLimited.String(), e.st.Message, map[string]any{
			"error": "Rate limit exceeded", "message": e.st.Message, "retry_after": max(secs, 1),
		}
	case *reportError:
		if e.report.Forbidden() {
			for _, o := range e.report.Errors {
				if o.Type == fault.PermissionError {
					return codeForbiddenWorkflow, o.Message, o
				}
			}
		}
		return codeInvalidWorkflow, fmt.Sprintf("the workflow has %d error(s)", len(e.report.Errors)), e.report
	}
	fe := fault.From(err)
	return fe.Kind.String(), fe.Message, fe.Object()
}

// httpStatus is the HTTP status of an e2a.error code.
func httpStatus(code string) int {
	switch code {
	case codeInvalidWorkflow:
		return http.StatusBadRequest
	case codeForbiddenWorkflow:
		return http.StatusForbidden
	}
	if k, ok := fault.KindNamed(code); ok {
		return k.HTTPStatus()
	}
	return http.StatusInternalServerError
}
