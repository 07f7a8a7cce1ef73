// Package fault is sluice's one error type. An Error carries a stable Kind (which
// decides the HTTP status, JSON-RPC code and session error code), the spec's error
// type name, a message that is safe to show a caller, and an internal cause that is
// logged but never sent. Keeping the public message apart from the cause is what
// lets every surface render errors without leaking secrets or internals.
package fault

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Kind is the stable class of a failure. Wire codes are derived from it in one table.
type Kind int

// The kinds, in DESIGN.md's order.
const (
	Internal Kind = iota
	Invalid
	Unauthenticated
	PermissionDenied
	NotFound
	Conflict
	RateLimited
	Timeout
	Unavailable
	Upstream
	// TooLarge is a request body or document over a size bound (HTTP 413).
	TooLarge
	// Cancelled is work stopped because its caller went away (a session or
	// connection that ended, a server shutting down): nothing failed.
	Cancelled
)

// The A2E spec's error type names.
const (
	ValidationError = "ValidationError"
	PermissionError = "PermissionError"
	ExecutionError  = "ExecutionError"
	TimeoutError    = "TimeoutError"
	DataError       = "DataError"
)

// Error is a failure with a public face and a private cause.
type Error struct {
	Kind        Kind
	Type        string         // spec error type; derived from Kind when empty
	Message     string         // safe to show
	OperationID string         // the operation it concerns, if any
	Line        int            // 1-based document line, validation only
	Path        string         // JSON path of the problem, validation only
	Details     map[string]any // safe structured details
	Suggestions []string

	// Retryable marks a transient failure; RetryAfter is the server's hint, if any.
	Retryable  bool
	RetryAfter time.Duration

	Cause error // internal; logged, never sent
}

// New makes an Error of kind with a public message.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Typed makes an Error with an explicit spec type.
func Typed(kind Kind, typ string, format string, args ...any) *Error {
	return &Error{Kind: kind, Type: typ, Message: fmt.Sprintf(format, args...)}
}

// Error returns the public message only: the cause may hold secrets or internals.
func (e *Error) Error() string { return e.Message }

// Unwrap exposes the internal cause to errors.Is/As.
func (e *Error) Unwrap() error { return e.Cause }

// LogValue lets slog record the cause as well as the public face.
func (e *Error) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("type", e.SpecType()),
		slog.String("message", e.Message),
	}
	if e.OperationID != "" {
		attrs = append(attrs, slog.String("operationId", e.OperationID))
	}
	if e.Cause != nil {
		attrs = append(attrs, slog.String("cause", e.Cause.Error()))
	}
	return slog.GroupValue(attrs...)
}

// SpecType is the spec's error type name for this error.
func (e *Error) SpecType() string {
	if e.Type != "" {
		return e.Type
	}
	return kindTable[e.Kind].SpecType
}

// WithCause records the internal cause and returns e.
func (e *Error) WithCause(err error) *Error { e.Cause = err; return e }

// WithOp records the operation id and returns e.
func (e *Error) WithOp(id string) *Error { e.OperationID = id; return e }

// WithDetail adds one detail and returns e.
func (e *Error) WithDetail(key string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = v
	return e
}

// WithSuggestions appends suggestions and returns e.
func (e *Error) WithSuggestions(s ...string) *Error {
	e.Suggestions = append(e.Suggestions, s...)
	return e
}

// At records a document line and JSON path and returns e.
func (e *Error) At(line int, path string) *Error { e.Line, e.Path = line, path; return e }

// Retry marks e as transient with an optional server hint and returns e.
func (e *Error) Retry(after time.Duration) *Error { e.Retryable, e.RetryAfter = true, after; return e }

// As finds a *Error in err's chain.
func As(err error) (*Error, bool) {
	var fe *Error
	if errors.As(err, &fe) {
		return fe, true
	}
	return nil, false
}

// From returns err as a *Error, wrapping anything else as an internal error whose
// public message says nothing of the cause.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	if fe, ok := As(err); ok {
		return fe
	}
	// A context's end is not a defect: the work was stopped, or ran out of
	// its time.
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Kind: Cancelled, Message: "cancelled: the caller's session or connection ended", Cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: Timeout, Message: "the call did not finish within its time", Cause: err}
	}
	return &Error{Kind: Internal, Message: "internal error", Cause: err}
}

// KindOf is the Kind of err as From reads it (Internal for foreign errors).
func KindOf(err error) Kind {
	if err == nil {
		return Internal
	}
	return From(err).Kind
}

// Object is the spec's error object as it goes on the wire.
type Object struct {
	Type        string         `json:"type"`
	Message     string         `json:"message"`
	OperationID string         `json:"operationId,omitempty"`
	Line        int            `json:"line,omitempty"`
	Path        string         `json:"path,omitempty"`
	Details     map[string]any `json:"details,omitempty"`
	Suggestions []string       `json:"suggestions,omitempty"`
}

// Object renders the public part of e.
func (e *Error) Object() Object {
	return Object{
		Type:        e.SpecType(),
		Message:     e.Message,
		OperationID: e.OperationID,
		Line:        e.Line,
		Path:        e.Path,
		Details:     e.Details,
		Suggestions: e.Suggestions,
	}
}
