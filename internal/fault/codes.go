package fault

import "net/http"

// Row is one error code as every wire renders it. Each wire's renderer (REST,
// E2A NDJSON, session error messages, tool results, JSON-RPC) reads its
// column here and decides nothing of its own: a new code, or a new wire, is
// a row or a column of this table.
type Row struct {
	Code       string // the E2A error code: e2a.error frames, audit records, metrics
	SpecType   string // the A2E spec's error type
	HTTPStatus int    // REST and the E2A endpoint's status
	JSONRPC    int    // JSON-RPC error code
	// SessionCode is an a2e-session error message's code: the session
	// protocol's closed list (protocol/session's Code* constants).
	SessionCode string
	// ToolCode is a failed tool result's error_code (tool/call/resp): a
	// call that ran and failed this way.
	ToolCode string
	// Retryable is the session error's retryable flag: trying again later
	// may succeed.
	Retryable bool
	// ACP is the JSON-RPC error code on the Agent Client Protocol wire
	// (`sluice acp`): JSON-RPC's own, except where ACP names a code of its
	// own (-32000 auth_required, -32002 resource_not_found), which editors
	// act on (an editor offers to sign in again on -32000).
	ACP int
}

// The E2A codes that are not a Kind: a workflow that did not validate is
// answered with its report, which REST sends as the whole body.
const (
	// CodeInvalidWorkflow: the document did not validate; the frame's
	// details is the validate report {valid: false, errors, warnings}, sent
	// by REST as is with 400 (RESOLUTIONS).
	CodeInvalidWorkflow = "invalid_workflow"
	// CodeForbiddenWorkflow: validation found a permission problem; details
	// is the first PermissionError object, sent by REST under "error" with 403.
	CodeForbiddenWorkflow = "forbidden_workflow"
)

// kindTable is the rows of the kinds.
var kindTable = map[Kind]Row{
	Internal:         {"internal", ExecutionError, http.StatusInternalServerError, -32603, "runtime_error", "tool_error", false, -32603},
	Invalid:          {"invalid", ValidationError, http.StatusBadRequest, -32602, "schema_violation", "tool_error", false, -32602},
	Unauthenticated:  {"unauthenticated", PermissionError, http.StatusUnauthorized, -32001, "unauthorized", "tool_denied", false, -32000},
	PermissionDenied: {"permission_denied", PermissionError, http.StatusForbidden, -32003, "tool_denied", "tool_denied", false, -32003},
	NotFound:         {"not_found", ExecutionError, http.StatusNotFound, -32004, "unknown_tool", "tool_error", false, -32002},
	Conflict:         {"conflict", ExecutionError, http.StatusConflict, -32009, "runtime_error", "tool_error", false, -32009},
	RateLimited:      {"rate_limited", ExecutionError, http.StatusTooManyRequests, -32029, "rate_limited", "tool_error", true, -32029},
	Timeout:          {"timeout", TimeoutError, http.StatusGatewayTimeout, -32008, "timeout", "timeout", false, -32008},
	Unavailable:      {"unavailable", ExecutionError, http.StatusServiceUnavailable, -32013, "runtime_error", "tool_error", true, -32013},
	Upstream:         {"upstream", ExecutionError, http.StatusBadGateway, -32010, "tool_error", "tool_error", false, -32010},
	TooLarge:         {"too_large", ValidationError, http.StatusRequestEntityTooLarge, -32602, "schema_violation", "tool_error", false, -32602},
	// 499 is nginx's "client closed request": the caller is gone and never
	// reads it; -32800 is LSP's RequestCancelled. The session protocol's
	// closed list of codes has none for a cancellation: runtime_error.
	Cancelled: {"cancelled", ExecutionError, 499, -32800, "runtime_error", "tool_error", false, -32800},
}

// workflowRows are the codes of a workflow that did not validate. A session
// has no code of its own for them: the tool's call failed (tool_error), or
// was refused (tool_denied).
var workflowRows = []Row{
	{CodeInvalidWorkflow, ValidationError, http.StatusBadRequest, -32602, "tool_error", CodeInvalidWorkflow, false, -32602},
	{CodeForbiddenWorkflow, PermissionError, http.StatusForbidden, -32003, "tool_denied", "tool_denied", false, -32003},
}

// Rows is every row of the table (for tests and documentation).
func Rows() []Row {
	out := make([]Row, 0, len(kindTable)+len(workflowRows))
	for k := Internal; k <= Cancelled; k++ {
		out = append(out, kindTable[k])
	}
	return append(out, workflowRows...)
}

// RowOf is the row of an E2A error code. A code outside the table (a
// defect, or a frame from a newer peer) is rendered as an internal error.
func RowOf(code string) Row {
	if k, ok := KindNamed(code); ok {
		return kindTable[k]
	}
	for _, r := range workflowRows {
		if r.Code == code {
			return r
		}
	}
	return kindTable[Internal]
}

// Row is k's row.
func (k Kind) Row() Row { return kindTable[k] }

// ToolCodeOfType is the tool result's error_code of an execution that failed
// with an error of spec type specType (its first error: a step's failure
// carries the spec type, not the Kind). The kinds of one spec type share
// their ToolCode (a test holds the table to it); a type no kind has (a
// DataError) failed the tool.
func ToolCodeOfType(specType string) string {
	for k := Internal; k <= Cancelled; k++ {
		if r := kindTable[k]; r.SpecType == specType {
			return r.ToolCode
		}
	}
	return kindTable[Internal].ToolCode
}

// String is the Kind's stable snake_case code.
func (k Kind) String() string { return kindTable[k].Code }

// HTTPStatus is the HTTP status for k.
func (k Kind) HTTPStatus() int { return kindTable[k].HTTPStatus }

// JSONRPCCode is the JSON-RPC error code for k.
func (k Kind) JSONRPCCode() int { return kindTable[k].JSONRPC }

// SessionCode is the a2e-session error code for k.
func (k Kind) SessionCode() string { return kindTable[k].SessionCode }

// KindNamed returns the Kind whose code (String) is name.
func KindNamed(name string) (Kind, bool) {
	for k, row := range kindTable {
		if row.Code == name {
			return k, true
		}
	}
	return 0, false
}
