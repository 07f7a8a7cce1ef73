package fault_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
)

func TestPublicMessageHidesCause(t *testing.T) {
	cause := errors.New("dial tcp: secret-token-123 leaked in cause")
	err := fault.New(fault.Upstream, "API call failed").WithCause(cause).WithOp("op-1")
	if strings.Contains(err.Error(), "secret-token-123") {
		t.Fatalf("Error() exposes the cause: %q", err.Error())
	}
	b, _ := json.Marshal(err.Object())
	if strings.Contains(string(b), "secret-token-123") {
		t.Fatalf("Object() exposes the cause: %s", b)
	}
	if !errors.Is(err, cause) {
		t.Fatal("cause must stay reachable through errors.Is for logging")
	}
	var sb strings.Builder
	slog.New(slog.NewJSONHandler(&sb, nil)).Error("x", "err", err)
	if !strings.Contains(sb.String(), "secret-token-123") || !strings.Contains(sb.String(), `"operationId":"op-1"`) {
		t.Fatalf("the log record must carry the cause and the operation: %s", sb.String())
	}
}

func TestSpecTypeAndCodes(t *testing.T) {
	cases := []struct {
		err     *fault.Error
		typ     string
		status  int
		session string
		code    string
	}{
		{fault.New(fault.Invalid, "x"), fault.ValidationError, 400, "schema_violation", "invalid"},
		{fault.New(fault.PermissionDenied, "x"), fault.PermissionError, 403, "tool_denied", "permission_denied"},
		{fault.New(fault.Unauthenticated, "x"), fault.PermissionError, 401, "unauthorized", "unauthenticated"},
		{fault.New(fault.Timeout, "x"), fault.TimeoutError, 504, "timeout", "timeout"},
		{fault.New(fault.RateLimited, "x"), fault.ExecutionError, 429, "rate_limited", "rate_limited"},
		{fault.New(fault.Upstream, "x"), fault.ExecutionError, 502, "tool_error", "upstream"},
		{fault.Typed(fault.Invalid, fault.DataError, "x"), fault.DataError, 400, "schema_violation", "invalid"},
		{fault.New(fault.TooLarge, "x"), fault.ValidationError, 413, "schema_violation", "too_large"},
	}
	for _, c := range cases {
		if got := c.err.SpecType(); got != c.typ {
			t.Errorf("%v: type %s, want %s", c.err.Kind, got, c.typ)
		}
		if got := c.err.Kind.HTTPStatus(); got != c.status {
			t.Errorf("%v: status %d, want %d", c.err.Kind, got, c.status)
		}
		if got := c.err.Kind.SessionCode(); got != c.session {
			t.Errorf("%v: session code %s, want %s", c.err.Kind, got, c.session)
		}
		if got := c.err.Kind.String(); got != c.code {
			t.Errorf("%v: code %s, want %s", c.err.Kind, got, c.code)
		}
		if c.err.Kind.JSONRPCCode() >= 0 {
			t.Errorf("%v: JSON-RPC codes are negative", c.err.Kind)
		}
	}
}

func TestFromWrapsForeignErrors(t *testing.T) {
	if fault.From(nil) != nil {
		t.Fatal("From(nil) must be nil")
	}
	foreign := fmt.Errorf("pq: password authentication failed for hunter2")
	fe := fault.From(foreign)
	if fe.Kind != fault.Internal || fe.Message != "internal error" {
		t.Fatalf("foreign error rendered as %+v", fe)
	}
	inner := fault.New(fault.NotFound, "no such execution")
	if got := fault.From(fmt.Errorf("wrapped: %w", inner)); got != inner {
		t.Fatal("From must find a *Error in the chain")
	}
	if fault.KindOf(foreign) != fault.Internal || fault.KindOf(inner) != fault.NotFound {
		t.Fatal("KindOf misclassifies")
	}
}

func TestObjectShape(t *testing.T) {
	err := fault.Typed(fault.Invalid, fault.ValidationError, "unknown operation %q", "Foo").
		WithOp("op-1").At(3, "operation").WithDetail("name", "Foo").WithSuggestions("Use ApiCall")
	b, _ := json.Marshal(err.Object())
	want := `{"type":"ValidationError","message":"unknown operation \"Foo\"","operationId":"op-1","line":3,"path":"operation","details":{"name":"Foo"},"suggestions":["Use ApiCall"]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	retry := fault.New(fault.Upstream, "503").Retry(2e9)
	if !retry.Retryable || retry.RetryAfter != 2e9 {
		t.Fatal("Retry must mark the error")
	}
}
