package session

// ErrorCode is the code of an `error` message. The list is closed and
// documented; it grows only by adding (RESOLUTIONS, A2E session protocol).
type ErrorCode string

// The error codes. The first five are the codec's own: Decode and the Reader
// return them in an *Error; the rest are the server's answers to messages that
// decoded well.
const (
	// CodeParseError: the line is not JSON (or not UTF-8).
	CodeParseError ErrorCode = "parse_error"
	// CodeInvalidMessage: the line is JSON but not an A2E message: not an
	// object, a base field (a2e, type, id, ts) missing or malformed, a
	// duplicate key, a line over the size limit or nested too deep.
	CodeInvalidMessage ErrorCode = "invalid_message"
	// CodeSchemaViolation: a known type whose own fields are wrong; the error
	// names the field.
	CodeSchemaViolation ErrorCode = "schema_violation"
	// CodeUnknownType: a type nothing handles. Decode itself does not fail on
	// it (the message decodes as *Generic); the server answers this code.
	CodeUnknownType ErrorCode = "unknown_type"
	// CodeVersionMismatch: another major version of the protocol.
	CodeVersionMismatch ErrorCode = "version_mismatch"

	CodeUnauthorized ErrorCode = "unauthorized"
	CodeRateLimited  ErrorCode = "rate_limited"
	CodeTimeout      ErrorCode = "timeout"
	CodeRuntimeError ErrorCode = "runtime_error"
	CodeUnknownTool  ErrorCode = "unknown_tool"
	CodeToolDenied   ErrorCode = "tool_denied"
	CodeToolError    ErrorCode = "tool_error"
)

var codes = []ErrorCode{
	CodeParseError, CodeInvalidMessage, CodeSchemaViolation, CodeUnknownType,
	CodeVersionMismatch, CodeUnauthorized, CodeRateLimited, CodeTimeout,
	CodeRuntimeError, CodeUnknownTool, CodeToolDenied, CodeToolError,
}

// Codes returns the closed list of error codes, in the documented order.
func Codes() []ErrorCode { return append([]ErrorCode(nil), codes...) }

// Known reports whether c is one of Codes. Decoding an `error` message accepts
// any snake_case code, so that a peer on a later minor version may send one
// added since; Known tells them apart.
func (c ErrorCode) Known() bool {
	for _, k := range codes {
		if c == k {
			return true
		}
	}
	return false
}

// EventKind is the kind of an invoke/event or tool/event.
type EventKind string

// The event kinds.
const (
	KindProgress EventKind = "progress"
	KindArtifact EventKind = "artifact"
	KindLog      EventKind = "log"
	KindStatus   EventKind = "status"
)

var eventKinds = []string{string(KindProgress), string(KindArtifact), string(KindLog), string(KindStatus)}

// Reasons a handshake/resp gives when ok is false.
const (
	// ReasonAuthFailed: the auth_token is not a valid sluice API key.
	ReasonAuthFailed = "auth_failed"
	// ReasonVersionMismatch: the handshake/req spoke another major version.
	ReasonVersionMismatch = "version_mismatch"
)
