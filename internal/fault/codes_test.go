package fault_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/session"
)

// Every row renders on every wire, with a code each wire knows: a row left
// half-filled would answer 0, "" or a session code the SDK's models refuse.
func TestEveryRowRendersOnEveryWire(t *testing.T) {
	sessionCodes := map[string]bool{}
	for _, c := range []session.ErrorCode{session.CodeRuntimeError, session.CodeSchemaViolation, session.CodeUnauthorized,
		session.CodeToolDenied, session.CodeUnknownTool, session.CodeRateLimited, session.CodeTimeout, session.CodeToolError} {
		sessionCodes[string(c)] = true
	}
	seen := map[string]bool{}
	for _, r := range fault.Rows() {
		if r.Code == "" || seen[r.Code] {
			t.Errorf("row %+v: its code is empty or declared twice", r)
		}
		seen[r.Code] = true
		if got := fault.RowOf(r.Code); got != r {
			t.Errorf("RowOf(%q) = %+v, not its row", r.Code, got)
		}
		if r.HTTPStatus < 400 || r.JSONRPC >= 0 || r.ACP >= 0 || r.SpecType == "" {
			t.Errorf("%s: HTTP %d, JSON-RPC %d, ACP %d, type %q", r.Code, r.HTTPStatus, r.JSONRPC, r.ACP, r.SpecType)
		}
		// ACP differs from JSON-RPC only where ACP names a code of its own.
		if r.ACP != r.JSONRPC && r.ACP != -32000 && r.ACP != -32002 {
			t.Errorf("%s: ACP %d differs from JSON-RPC %d without an ACP code", r.Code, r.ACP, r.JSONRPC)
		}
		if !sessionCodes[r.SessionCode] {
			t.Errorf("%s: session code %q is not one of the session protocol's", r.Code, r.SessionCode)
		}
		if r.ToolCode != fault.CodeInvalidWorkflow && !sessionCodes[r.ToolCode] {
			t.Errorf("%s: tool code %q is neither a session code nor invalid_workflow", r.Code, r.ToolCode)
		}
	}
	for k := fault.Internal; k <= fault.Cancelled; k++ {
		if k.Row().Code == "" || k.Row() != fault.RowOf(k.String()) {
			t.Errorf("kind %d has no row of its own", k)
		}
	}
	for _, code := range []string{fault.CodeInvalidWorkflow, fault.CodeForbiddenWorkflow} {
		if !seen[code] {
			t.Errorf("%s has no row", code)
		}
	}
	if fault.RowOf("no_such_code") != fault.Internal.Row() {
		t.Error("a code outside the table must render as internal")
	}
}

// A failed step carries its spec type, not its kind: the kinds of one spec
// type must agree on the tool result's code, or ToolCodeOfType would pick
// one of them by the table's order.
func TestKindsOfOneSpecTypeShareTheirToolCode(t *testing.T) {
	byType := map[string]string{}
	for k := fault.Internal; k <= fault.Cancelled; k++ {
		r := k.Row()
		if prev, ok := byType[r.SpecType]; ok && prev != r.ToolCode {
			t.Errorf("%s: tool code %s, but another %s kind says %s", r.Code, r.ToolCode, r.SpecType, prev)
		}
		byType[r.SpecType] = r.ToolCode
	}
	want := map[string]string{fault.TimeoutError: "timeout", fault.PermissionError: "tool_denied",
		fault.ExecutionError: "tool_error", fault.ValidationError: "tool_error", fault.DataError: "tool_error"}
	for typ, code := range want {
		if got := fault.ToolCodeOfType(typ); got != code {
			t.Errorf("ToolCodeOfType(%s) = %s, want %s", typ, got, code)
		}
	}
}
