package gateway

import (
	"fmt"
	"math"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/validate"
)

// limitError is a refused request; its frame's details are the spec's 429 body.
type limitError struct{ st LimitStatus }

func (e *limitError) Error() string { return e.st.Message }

// reportError is a workflow that did not validate.
type reportError struct{ report *validate.Report }

func (e *reportError) Error() string { return "the workflow is not valid" }

// errorBody turns an error into an e2a.error frame's body: a stable code (a
// row of fault's table, which every wire's renderer reads), a message safe to
// show, and details that hold the spec's error object, or a body of its own
// that REST sends whole (the 429 body, the validate report).
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
					return fault.CodeForbiddenWorkflow, o.Message, o
				}
			}
		}
		return fault.CodeInvalidWorkflow, fmt.Sprintf("the workflow has %d error(s)", len(e.report.Errors)), e.report
	}
	fe := fault.From(err)
	return fe.Kind.String(), fe.Message, fe.Object()
}
