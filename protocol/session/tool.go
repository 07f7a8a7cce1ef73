package session

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// The tool namespace: registered by default.

// Type strings of the tool namespace.
const (
	TypeToolListReq  = "tool/list/req"
	TypeToolListResp = "tool/list/resp"
	TypeToolCallReq  = "tool/call/req"
	TypeToolCallResp = "tool/call/resp"
	TypeToolEvent    = "tool/event"
)

// MaxToolNameBytes bounds a tool name.
const MaxToolNameBytes = 256

// ToolListReq asks for the tools the session may call. A non-empty Query
// searches; FilterTags keeps tools with any of the tags; a non-empty
// FilterKind keeps the tools of one kind (the part of the name before its
// first dot: op, workflow, cap, agent, mcp; the server checks the value).
type ToolListReq struct {
	Header
	FilterKind      string   `json:"filter_kind,omitempty"`
	Query           string   `json:"query,omitempty"`
	FilterTags      []string `json:"filter_tags,omitempty"`
	IncludeDeferred bool     `json:"include_deferred,omitempty"`
}

func (*ToolListReq) MessageType() string { return TypeToolListReq }

// ToolListResp answers a ToolListReq.
type ToolListResp struct {
	Header
	Ref
	Tools []ToolInfo `json:"tools"`
}

func (*ToolListResp) MessageType() string { return TypeToolListResp }

// MarshalJSON writes every list as [] when it is nil (tools, and each tool's
// parameters): a session that may call nothing gets an empty list, not null,
// which the SDK's models refuse.
func (m *ToolListResp) MarshalJSON() ([]byte, error) {
	type plain ToolListResp // the same fields without this method
	c := plain(*m)
	c.Tools = make([]ToolInfo, len(m.Tools))
	for i, t := range m.Tools {
		if t.InputParameters == nil {
			t.InputParameters = []ToolParameter{}
		}
		if t.OutputParameters == nil {
			t.OutputParameters = []ToolParameter{}
		}
		c.Tools[i] = t
	}
	return marshalCompact(&c)
}

// ToolInfo describes one tool, as the SDK's ToolDefinition: Description is
// always written (the SDK requires it), and the parameters are lists of
// ToolParameter (ParametersOf derives them from a JSON Schema). The whole JSON
// Schemas travel beside them in InputSchema and OutputSchema, fields the SDK
// ignores. Names follow RESOLUTIONS: op.<Operation>, workflow.validate,
// workflow.execute, cap.<namespace>/<id>, agent.<name>, mcp.<server>.<tool>.
type ToolInfo struct {
	Name             string          `json:"name" a2e:"required,toolname"`
	Description      string          `json:"description"`
	InputParameters  []ToolParameter `json:"input_parameters"`
	OutputParameters []ToolParameter `json:"output_parameters"`
	InputSchema      json.RawMessage `json:"input_schema,omitempty" a2e:"object"`
	OutputSchema     json.RawMessage `json:"output_schema,omitempty"`
	Streaming        bool            `json:"streaming"`
	Idempotent       bool            `json:"idempotent"`
	Tags             []string        `json:"tags,omitempty"`
	Version          string          `json:"version,omitempty"`
}

// ToolParameter is one parameter of a tool, as the SDK's ToolParameter: Type
// is a JSON Schema type name ("any" when the schema gives none), Enum is set
// only when every allowed value is a string, and Properties (an object of
// name to ToolParameter) describes the fields of an object parameter.
type ToolParameter struct {
	Name        string          `json:"name" a2e:"required"`
	Type        string          `json:"type" a2e:"required"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Enum        []string        `json:"enum,omitempty"`
	Properties  json.RawMessage `json:"properties,omitempty" a2e:"object"`
}

// ToolCallReq calls a tool. Arguments is a JSON object (or absent). Timeout is
// in seconds; 0 means the server's default. With Streaming the server sends
// tool/event messages while the tool runs.
type ToolCallReq struct {
	Header
	SessionID     string          `json:"session_id,omitempty"`
	ToolName      string          `json:"tool_name" a2e:"required,toolname"`
	Arguments     json.RawMessage `json:"arguments,omitempty" a2e:"object"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Streaming     bool            `json:"streaming,omitempty"`
	Timeout       float64         `json:"timeout,omitempty" a2e:"nonneg"`
	// Meta is sluice's extension, as MCP's _meta: the caller's W3C trace
	// context (traceparent, tracestate, baggage) among other keys.
	Meta json.RawMessage `json:"_meta,omitempty" a2e:"object"`
}

func (*ToolCallReq) MessageType() string { return TypeToolCallReq }

// ToolCallResp answers a ToolCallReq whose tool ran, successfully or not. A
// call that could not run (unknown or forbidden tool, limits) gets an `error`.
type ToolCallResp struct {
	Header
	Ref
	Data ToolResult `json:"data" a2e:"required"`
}

func (*ToolCallResp) MessageType() string { return TypeToolCallResp }

// ToolResult is the body of a ToolCallResp. When Success is false, Error says
// what went wrong and ErrorCode classifies it. ToolName and DurationMS are
// always written: the SDK's ToolResult requires both (DurationMS as an
// integer).
type ToolResult struct {
	Success    bool            `json:"success" a2e:"required"`
	ToolName   string          `json:"tool_name"`
	Data       json.RawMessage `json:"data,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Truncated  bool            `json:"truncated,omitempty"`
	Error      string          `json:"error,omitempty"`
	ErrorCode  string          `json:"error_code,omitempty"`
	DurationMS int64           `json:"duration_ms" a2e:"nonneg"`
}

// ToolEvent reports on a streaming tool call while it runs; its fields are an
// invoke/event's.
type ToolEvent struct {
	Header
	EventFields
}

func (*ToolEvent) MessageType() string { return TypeToolEvent }

// tools is the tool namespace, registered by default.
var tools = Namespace{
	Name: "tool",
	Types: []Message{
		(*ToolListReq)(nil), (*ToolListResp)(nil), (*ToolCallReq)(nil),
		(*ToolCallResp)(nil), (*ToolEvent)(nil),
	},
}

// ValidToolName reports whether s can name a tool: 1 to MaxToolNameBytes
// bytes of printable characters without spaces.
func ValidToolName(s string) bool {
	if s == "" || len(s) > MaxToolNameBytes {
		return false
	}
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
