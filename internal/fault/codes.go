package fault

import "net/http"

// kindRow is one line of the table that maps a Kind onto every wire.
type kindRow struct {
	name        string // stable snake_case code (E2A error code)
	specType    string
	httpStatus  int
	jsonRPC     int
	sessionCode string // a2e-session error code
}

// kindTable is the one place wire codes are decided.
var kindTable = map[Kind]kindRow{
	Internal:         {"internal", ExecutionError, http.StatusInternalServerError, -32603, "runtime_error"},
	Invalid:          {"invalid", ValidationError, http.StatusBadRequest, -32602, "schema_violation"},
	Unauthenticated:  {"unauthenticated", PermissionError, http.StatusUnauthorized, -32001, "unauthorized"},
	PermissionDenied: {"permission_denied", PermissionError, http.StatusForbidden, -32003, "tool_denied"},
	NotFound:         {"not_found", ExecutionError, http.StatusNotFound, -32004, "unknown_tool"},
	Conflict:         {"conflict", ExecutionError, http.StatusConflict, -32009, "runtime_error"},
	RateLimited:      {"rate_limited", ExecutionError, http.StatusTooManyRequests, -32029, "rate_limited"},
	Timeout:          {"timeout", TimeoutError, http.StatusGatewayTimeout, -32008, "timeout"},
	Unavailable:      {"unavailable", ExecutionError, http.StatusServiceUnavailable, -32013, "runtime_error"},
	Upstream:         {"upstream", ExecutionError, http.StatusBadGateway, -32010, "tool_error"},
	TooLarge:         {"too_large", ValidationError, http.StatusRequestEntityTooLarge, -32602, "schema_violation"},
	// 499 is nginx's "client closed request": the caller is gone and never
	// reads it; -32800 is LSP's RequestCancelled. The session protocol's
	// closed list of codes has none for a cancellation: runtime_error.
	Cancelled: {"cancelled", ExecutionError, 499, -32800, "runtime_error"},
}

// String is the Kind's stable snake_case code.
func (k Kind) String() string { return kindTable[k].name }

// HTTPStatus is the HTTP status for k.
func (k Kind) HTTPStatus() int { return kindTable[k].httpStatus }

// JSONRPCCode is the JSON-RPC error code for k.
func (k Kind) JSONRPCCode() int { return kindTable[k].jsonRPC }

// SessionCode is the a2e-session error code for k.
func (k Kind) SessionCode() string { return kindTable[k].sessionCode }

// KindNamed returns the Kind whose code (String) is name.
func KindNamed(name string) (Kind, bool) {
	for k, row := range kindTable {
		if row.name == name {
			return k, true
		}
	}
	return 0, false
}
