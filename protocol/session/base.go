package session

import (
	"encoding/json"
	"log/slog"
	"slices"
)

// The base namespace: always registered, always enabled.

// Type strings of the base messages.
const (
	TypeHandshakeReq  = "handshake/req"
	TypeHandshakeResp = "handshake/resp"
	TypeEvent         = "invoke/event"
	TypePing          = "ping"
	TypePong          = "pong"
	TypeShutdown      = "shutdown"
	TypeError         = "error"
)

// HandshakeReq opens a session; it must be the session's first message.
// AuthToken is a sluice API key: it never appears in logs (LogValue) or errors.
type HandshakeReq struct {
	Header
	AgentID   string   `json:"agent_id,omitempty"`
	AgentCaps []string `json:"agent_caps,omitempty"` // capabilities the agent wants, e.g. ["tools", "mcp"] (Capabilities)
	AuthToken string   `json:"auth_token,omitempty"`
}

func (*HandshakeReq) MessageType() string { return TypeHandshakeReq }

// LogValue leaves the token out.
func (m *HandshakeReq) LogValue() slog.Value {
	return slog.GroupValue(slog.String("type", m.Type), slog.String("id", m.ID),
		slog.String("agent_id", m.AgentID), slog.Any("agent_caps", m.AgentCaps),
		slog.Bool("auth_token_set", m.AuthToken != ""))
}

// HandshakeResp answers a HandshakeReq. When OK is false, Reason says why
// (ReasonAuthFailed, ReasonVersionMismatch) and the connection closes.
type HandshakeResp struct {
	Header
	Ref
	SessionID    string          `json:"session_id,omitempty"`
	AcceptedCaps []CapabilityAck `json:"accepted_caps,omitempty"`
	MaxParallel  int             `json:"max_parallel,omitempty" a2e:"nonneg"` // in-flight calls allowed; 0: no limit announced
	OK           bool            `json:"ok"`
	Reason       string          `json:"reason,omitempty"`
	Limits       SessionLimits   `json:"limits,omitzero"`
}

func (*HandshakeResp) MessageType() string { return TypeHandshakeResp }

// Cap returns the answer for capability name, if the response has one.
func (m *HandshakeResp) Cap(name string) (CapabilityAck, bool) {
	i := slices.IndexFunc(m.AcceptedCaps, func(c CapabilityAck) bool { return c.Capability == name })
	if i < 0 {
		return CapabilityAck{}, false
	}
	return m.AcceptedCaps[i], true
}

// CapabilityAck is the answer for one capability the agent asked for (one of
// Capabilities; the SDK refuses any other name): one the server does not
// serve comes back with Enabled false.
type CapabilityAck struct {
	Capability string          `json:"capability" a2e:"required"`
	Enabled    bool            `json:"enabled"`
	Metadata   json.RawMessage `json:"metadata,omitempty" a2e:"object"`
}

// SessionLimits are the limits the server announces in the handshake;
// exceeding one gets an error, not a dropped connection. Zero means none
// announced. The number of calls in flight is HandshakeResp.MaxParallel.
type SessionLimits struct {
	MaxLineBytes   int     `json:"max_line_bytes,omitempty" a2e:"nonneg"`
	CallsPerSecond float64 `json:"calls_per_second,omitempty" a2e:"nonneg"`
}

// Ping asks the peer for a Pong. Either side may send it.
type Ping struct {
	Header
}

func (*Ping) MessageType() string { return TypePing }

// Pong answers a Ping.
type Pong struct {
	Header
	Ref
	UptimeSeconds float64 `json:"uptime_seconds" a2e:"nonneg"`
}

func (*Pong) MessageType() string { return TypePong }

// Shutdown ends a session. Sent without req_id, it asks the receiver to stop
// taking new calls, finish the ones in flight within Timeout seconds (0: the
// receiver's default), answer, and close. The answer is a Shutdown whose req_id
// is the request's id; it is the last message before the connection closes.
type Shutdown struct {
	Header
	ReqID   string  `json:"req_id,omitempty" a2e:"id"`
	Timeout float64 `json:"timeout,omitempty" a2e:"nonneg"` // seconds
}

func (*Shutdown) MessageType() string { return TypeShutdown }

// RequestID is the id of the Shutdown this one acknowledges, or "".
func (m *Shutdown) RequestID() string { return m.ReqID }

// ErrorMessage is the `error` message: the answer to a request that could not
// be carried out (a tool that ran and failed answers tool/call/resp instead).
// ReqID is empty when the offending line had no readable id. It is an error
// itself, which the Client returns from the call it answers.
type ErrorMessage struct {
	Header
	ReqID          string          `json:"req_id,omitempty" a2e:"id"`
	Code           ErrorCode       `json:"code" a2e:"required"`
	Message        string          `json:"message,omitempty"`
	Detail         json.RawMessage `json:"detail,omitempty" a2e:"object"`
	Retryable      bool            `json:"retryable"`
	CapabilityName string          `json:"capability_name,omitempty"`
}

func (*ErrorMessage) MessageType() string { return TypeError }

// RequestID is the id of the message the error answers, or "".
func (m *ErrorMessage) RequestID() string { return m.ReqID }

func (m *ErrorMessage) Error() string {
	if m.Message == "" {
		return "session: " + string(m.Code)
	}
	return "session: " + string(m.Code) + ": " + m.Message
}

// Validate checks that the code is snake_case (any such code is accepted; see
// ErrorCode.Known).
func (m *ErrorMessage) Validate() error {
	if !snakeCase(string(m.Code)) {
		return errorf(CodeSchemaViolation, "code", "must be a snake_case error code such as %q", CodeRuntimeError)
	}
	return nil
}

// EventFields are the fields of invoke/event and tool/event. Seq starts at 0
// and rises by 1 per req_id (see Sequencer).
type EventFields struct {
	Ref
	Kind EventKind       `json:"kind" a2e:"required"`
	Data json.RawMessage `json:"data,omitempty" a2e:"object"` // the SDK's models take an object only
	Seq  int             `json:"seq" a2e:"required,nonneg"`
}

// Validate checks the kind.
func (f *EventFields) Validate() error {
	if !slices.Contains(eventKinds, string(f.Kind)) {
		e := errorf(CodeSchemaViolation, "kind", "must be one of progress, artifact, log, status")
		e.Suggestions = didYouMean(string(f.Kind), eventKinds)
		return e
	}
	return nil
}

// Event is an invoke/event: progress, an artifact, a log line or a status of
// the work a request started.
type Event struct {
	Header
	EventFields
}

func (*Event) MessageType() string { return TypeEvent }

func snakeCase(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// base is the base namespace: handshake, ping, pong, shutdown, error and
// invoke/event. Every registry has it.
var base = Namespace{
	Name: "",
	Types: []Message{
		(*HandshakeReq)(nil), (*HandshakeResp)(nil), (*Event)(nil),
		(*Ping)(nil), (*Pong)(nil), (*Shutdown)(nil), (*ErrorMessage)(nil),
	},
}
