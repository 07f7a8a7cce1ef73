package e2a

import (
	"encoding/json"
	"strconv"
	"time"
)

// Envelope is one normalized request (the reference's E2AEnvelope). Fields are
// in the reference's order, which is also the order they are written in.
type Envelope struct {
	ProtocolVersion string // "1.0" when read without one
	Provenance      Provenance
	RequestID       string // primary Gateway<->AgentServer id; frames align on it
	JSONRPCID       ID     // JSON-RPC id when ingested from ACP
	CorrelationID   string
	TaskID          string // A2A alignment
	ContextID       string // A2A alignment
	SessionID       string
	MessageID       string     // platform or A2A message id, never the request id
	Timestamp       *time.Time // business time, UTC; nil is null (year 1 is a time)
	IdentityOrigin  IdentityOrigin
	Channel         string // ingress name; legacy channel_id reads here
	UserID          string
	AgentRef        map[string]any // nil is null, unlike the other maps
	ChatID          string
	SourceAgentID   string
	// AgentID, ServiceID and WorkspaceKey are the reference's multi-tenant
	// tips: who the agent, the service and the data directory are on the
	// peer's side. They are read trimmed, "" when blank; AgentID falls back to
	// source_agent_id and WorkspaceKey to the legacy workspace_dir, as the
	// reference reads them. sluice carries them and acts on none: the account
	// comes from the API key.
	AgentID      string
	ServiceID    string
	WorkspaceKey string
	// Method is a gateway method (workflow.execute, ...), an ACP method
	// (session/prompt, ...), "ext" with ExtMethod, or "" (null) for internal
	// messages such as heartbeats. Legacy req_method reads here.
	Method              string
	Params              map[string]any // the single business-parameter object
	ExtMethod           string
	SessionUpdateKind   string // one of ACPSessionUpdateKinds, or ""
	IsStream            bool
	ExpectedOutputModes []string // A2A acceptedOutputModes
	Auth                *Auth    // nil is null
	ChannelContext      map[string]any
	A2AMetadata         map[string]any
	ACPMeta             map[string]any // merged into params._meta for ACP
}

// NewEnvelope returns an envelope with the reference's defaults.
func NewEnvelope() *Envelope {
	return &Envelope{ProtocolVersion: ProtocolVersion, Provenance: Provenance{SourceProtocol: SourceE2A}, IdentityOrigin: OriginUser}
}

// Provenance says where an envelope or frame came from (E2AProvenance).
type Provenance struct {
	SourceProtocol string     // "e2a", "acp", "a2a"; "e2a" when read without one
	Converter      string     // who converted it
	ConvertedAt    *time.Time // when it was converted (not the business time); nil is null
	// Details is free-form, with one difference from the other free-form
	// slots: a number a float64 cannot hold exactly (a JSON-RPC id beyond
	// 2^53) is kept as a json.Number, because details records ids as they came.
	Details map[string]any
}

// Time returns t in UTC, for the nullable time fields (Envelope.Timestamp,
// Response.Timestamp, Provenance.ConvertedAt).
func Time(t time.Time) *time.Time {
	t = t.UTC()
	return &t
}

// Auth holds credential references (E2AAuth). BearerToken is a secret: the log
// writer never writes it, and the gateway drops any Auth a caller sends.
type Auth struct {
	MethodID      string
	BearerToken   string
	APIKeyRef     string
	CredentialRef string
	ExtraHeaders  map[string]string
	Meta          map[string]any // "_meta"
}

// FileRef is one attachment of params.files or params.attachments (E2AFileRef).
type FileRef struct {
	URI      string // required
	Name     string
	MimeType string
	Size     *int64 // nil is null
	Meta     map[string]any
}

// ID is a JSON-RPC id: a string, a number, or null (the zero ID). Numbers keep
// their JSON text so an id is echoed exactly as it came.
type ID struct {
	text     string
	isNumber bool
	set      bool
}

// StringID returns a string id.
func StringID(s string) ID { return ID{text: s, set: true} }

// IntID returns a number id.
func IntID(n int64) ID { return ID{text: strconv.FormatInt(n, 10), isNumber: true, set: true} }

// IsNull reports whether id is null (absent).
func (id ID) IsNull() bool { return !id.set }

// IsNumber reports whether id is a number.
func (id ID) IsNumber() bool { return id.set && id.isNumber }

// String returns the id's text: the string, or the number as written; "" for null.
func (id ID) String() string { return id.text }

// Int returns the id as an integer when it is an integral number.
func (id ID) Int() (int64, bool) {
	if !id.IsNumber() {
		return 0, false
	}
	n, err := strconv.ParseInt(id.text, 10, 64)
	return n, err == nil
}

// Value returns the id as a plain JSON value: nil, a string, a float64, or a
// json.Number for a number float64 cannot hold exactly (beyond 2^53). A number
// stays a number, as the reference keeps a JSON-RPC id (Python ints are
// exact): turning it into a string would make it another id.
func (id ID) Value() any {
	switch {
	case !id.set:
		return nil
	case !id.isNumber:
		return id.text
	}
	if f, err := strconv.ParseFloat(id.text, 64); err == nil && exactFloat(id.text, f) {
		return f
	}
	return json.Number(id.text)
}
