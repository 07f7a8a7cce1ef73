package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/protocol/e2a"
	"github.com/sluicehq/sluice/protocol/session"
)

// Every error the dispatcher can write has a row in fault's table, and each
// wire's renderer (REST, E2A NDJSON, session) answers it as that row says:
// no renderer has a code of its own.
func TestEveryEmittedCodeHasItsRowOnEveryWire(t *testing.T) {
	errs := []error{
		&limitError{LimitStatus{Limit: 60, RetryAfter: 1500 * time.Millisecond, Message: "Rate limit exceeded: 60 requests per minute"}},
		&reportError{&validate.Report{Errors: []fault.Object{{Type: fault.ValidationError, Message: "bad"}}, Warnings: []fault.Object{}}},
		&reportError{&validate.Report{Errors: []fault.Object{{Type: fault.PermissionError, Message: "no ApiCall"}}, Warnings: []fault.Object{}}},
		errors.New("a foreign error"),
		context.Canceled,
		context.DeadlineExceeded,
	}
	for k := fault.Internal; k <= fault.Cancelled; k++ {
		errs = append(errs, fault.New(k, "a %s failure", k))
	}
	emitted := map[string]bool{}
	for _, err := range errs {
		code, msg, details := errorBody(err)
		row := fault.RowOf(code)
		if row.Code != code {
			t.Errorf("%v: code %q has no row in fault's table", err, code)
			continue
		}
		emitted[code] = true
		f := e2a.ErrorFrame(code, msg, details)

		rec := httptest.NewRecorder()
		writeError(rec, f)
		if rec.Code != row.HTTPStatus {
			t.Errorf("REST %s: status %d, want %d", code, rec.Code, row.HTTPStatus)
		}
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Errorf("REST %s: %v", code, err)
		}
		switch err.(type) {
		case *limitError:
			if body["retry_after"] != float64(2) || rec.Header().Get("Retry-After") != "2" {
				t.Errorf("REST %s: the 429 body and Retry-After: %v %v", code, body, rec.Header())
			}
		default:
			if code == fault.CodeInvalidWorkflow {
				if body["valid"] != false {
					t.Errorf("REST %s: not the validate report: %v", code, body)
				}
			} else if _, ok := body["error"].(map[string]any); !ok {
				t.Errorf("REST %s: no error object: %v", code, body)
			}
		}

		nd := httptest.NewRecorder()
		sink := &ndjsonSink{w: nd, c: &Call{}}
		if err := sink.WriteFrame(f); err != nil || nd.Code != row.HTTPStatus {
			t.Errorf("E2A %s: status %d, want %d (%v)", code, nd.Code, row.HTTPStatus, err)
		}

		m := errorReply("r1", f)
		if string(m.Code) != row.SessionCode || m.Retryable != row.Retryable {
			t.Errorf("session %s: %s retryable %v, want %s %v", code, m.Code, m.Retryable, row.SessionCode, row.Retryable)
		}
	}
	for _, r := range fault.Rows() {
		if !emitted[r.Code] {
			t.Errorf("row %s is never emitted by the dispatcher: a row too many, or a case missing here", r.Code)
		}
	}
	// A code from outside the table (a newer peer's frame) is answered as internal.
	f := e2a.ErrorFrame("from_the_future", "?", nil)
	if rec := httptest.NewRecorder(); func() int { writeError(rec, f); return rec.Code }() != 500 {
		t.Error("REST: an unknown code is not a 500")
	}
	if m := errorReply("r1", f); m.Code != session.CodeRuntimeError || m.Retryable {
		t.Errorf("session: an unknown code is %s", m.Code)
	}
}
