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
// searches; FilterTags keeps tools with any of the tags.
type ToolListReq struct {
	Header
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

// MarshalJSON writes "tools":[] when Tools is nil: a session that may call
// nothing gets an empty list, not null, which a strict peer would refuse.
func (m *ToolListResp) MarshalJSON() ([]byte, error) {
	type plain ToolListResp // the same fields without this method
	p := (*plain)(m)
	if p.Tools == nil {
		c := *p
		c.Tools = []ToolInfo{}
		p = &c
	}
	return marshalCompact(p)
}

// ToolInfo describes one tool. Names follow RESOLUTIONS: op.<Operation>,
// workflow.validate, workflow.execute, cap.<namespace>/<id>, agent.<name>,
// mcp.<server>.<tool>. The parameter fields hold JSON Schemas.
type ToolInfo struct {
	Name             string          `json:"name" a2e:"required,toolname"`
	Description      string          `json:"description,omitempty"`
	InputParameters  json.RawMessage `json:"input_parameters,omitempty" a2e:"object"`
	OutputParameters json.RawMessage `json:"output_parameters,omitempty" a2e:"object"`
	Streaming        bool            `json:"streaming"`
	Idempotent       bool            `json:"idempotent"`
	Tags             []string        `json:"tags,omitempty"`
	Version          string          `json:"version,omitempty"`
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
// what went wrong and ErrorCode classifies it.
type ToolResult struct {
	Success    bool            `json:"success" a2e:"required"`
	ToolName   string          `json:"tool_name,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Truncated  bool            `json:"truncated,omitempty"`
	Error      string          `json:"error,omitempty"`
	ErrorCode  string          `json:"error_code,omitempty"`
	DurationMS float64         `json:"duration_ms,omitempty" a2e:"nonneg"`
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
