package session

import (
	"encoding/json"
	"net/url"
	"strings"
)

// The mcp namespace: a plugin (register it with Registry.Register(MCP)) by
// which a session adds, lists and removes MCP servers whose tools it may then
// call as mcp.<server>.<tool>. The codec only carries the messages; the server
// decides, under the account's mcp_servers grant, what may be registered.
//
//	mcp/server/register/req   {name, command} | {name, url, headers?, oauth?}
//	mcp/server/register/resp  {req_id, ok, reason, server: {name, command, url, tools}}
//	mcp/server/list/req       {}
//	mcp/server/list/resp      {req_id, servers: [{name, command, url, tools}]}
//	mcp/server/unregister/req {name}
//	mcp/server/unregister/resp {req_id, ok, reason}
//
// A server is reached in one of two ways, never both: `command` names an entry
// of the server's configured allowlist of MCP commands (a name, not a command
// line: an agent never chooses what runs or with which environment), or `url`
// is the http(s) endpoint of a streamable-HTTP MCP server (egress rules apply).
// `tools` lists the server's tools by their session names. A url server's
// requests may carry vault credentials, named, never given as values:
// `headers` {"Authorization": {"credentialRef": {"id": "..."}}} and `oauth`
// {"clientId": {"credentialRef": ...}, "clientSecret": {"credentialRef": ...}}
// for the OAuth client-credentials flow.

// Type strings of the mcp namespace.
const (
	TypeMCPRegisterReq    = "mcp/server/register/req"
	TypeMCPRegisterResp   = "mcp/server/register/resp"
	TypeMCPListReq        = "mcp/server/list/req"
	TypeMCPListResp       = "mcp/server/list/resp"
	TypeMCPUnregisterReq  = "mcp/server/unregister/req"
	TypeMCPUnregisterResp = "mcp/server/unregister/resp"
)

// MaxMCPServerNameBytes bounds an MCP server name.
const MaxMCPServerNameBytes = 64

// MCPRegisterReq registers an MCP server for the session's account.
type MCPRegisterReq struct {
	Header
	Name    string `json:"name" a2e:"required"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	// Headers and OAuth name vault credentials (the server reads them).
	Headers json.RawMessage `json:"headers,omitempty"`
	OAuth   json.RawMessage `json:"oauth,omitempty"`
}

func (*MCPRegisterReq) MessageType() string { return TypeMCPRegisterReq }

// Validate checks the name and that exactly one of command and url is given.
func (m *MCPRegisterReq) Validate() error {
	return validateMCPServer(m.Name, m.Command, m.URL, true)
}

// MCPRegisterResp answers an MCPRegisterReq; Server is set when OK.
type MCPRegisterResp struct {
	Header
	Ref
	OK     bool      `json:"ok"`
	Reason string    `json:"reason,omitempty"`
	Server MCPServer `json:"server,omitzero"`
}

func (*MCPRegisterResp) MessageType() string { return TypeMCPRegisterResp }

// MCPListReq asks for the MCP servers the account has registered.
type MCPListReq struct {
	Header
}

func (*MCPListReq) MessageType() string { return TypeMCPListReq }

// MCPListResp answers an MCPListReq.
type MCPListResp struct {
	Header
	Ref
	Servers []MCPServer `json:"servers"`
}

func (*MCPListResp) MessageType() string { return TypeMCPListResp }

// MarshalJSON writes "servers":[] when Servers is nil, as ToolListResp does.
func (m *MCPListResp) MarshalJSON() ([]byte, error) {
	type plain MCPListResp
	p := (*plain)(m)
	if p.Servers == nil {
		c := *p
		c.Servers = []MCPServer{}
		p = &c
	}
	return marshalCompact(p)
}

// MCPServer is a registered MCP server.
type MCPServer struct {
	Name    string   `json:"name" a2e:"required"`
	Command string   `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	Tools   []string `json:"tools,omitempty"` // session tool names, mcp.<server>.<tool>
}

// Validate checks the name and the command/url choice.
func (s *MCPServer) Validate() error { return validateMCPServer(s.Name, s.Command, s.URL, false) }

// MCPUnregisterReq removes a registered MCP server and its tools.
type MCPUnregisterReq struct {
	Header
	Name string `json:"name" a2e:"required"`
}

func (*MCPUnregisterReq) MessageType() string { return TypeMCPUnregisterReq }

// Validate checks the name.
func (m *MCPUnregisterReq) Validate() error { return validateMCPServer(m.Name, "", "", false) }

// MCPUnregisterResp answers an MCPUnregisterReq.
type MCPUnregisterResp struct {
	Header
	Ref
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
}

func (*MCPUnregisterResp) MessageType() string { return TypeMCPUnregisterResp }

// MCP is the mcp namespace plugin.
var MCP = Namespace{
	Name: "mcp",
	Types: []Message{
		(*MCPRegisterReq)(nil), (*MCPRegisterResp)(nil), (*MCPListReq)(nil),
		(*MCPListResp)(nil), (*MCPUnregisterReq)(nil), (*MCPUnregisterResp)(nil),
	},
}

// ValidMCPServerName reports whether s can name an MCP server: 1 to
// MaxMCPServerNameBytes ASCII letters, digits, '_' and '-' (no '.', which
// separates the parts of mcp.<server>.<tool>).
func ValidMCPServerName(s string) bool {
	if s == "" || len(s) > MaxMCPServerNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validateMCPServer checks a server's name, and its command and url: exactly
// one when one is required, at most one otherwise.
func validateMCPServer(name, command, rawURL string, oneRequired bool) error {
	if !ValidMCPServerName(name) {
		return errorf(CodeSchemaViolation, "name", "must be 1 to %d letters, digits, '_' or '-'", MaxMCPServerNameBytes)
	}
	switch {
	case command != "" && rawURL != "":
		return errorf(CodeSchemaViolation, "url", "give command or url, not both")
	case command == "" && rawURL == "" && oneRequired:
		return errorf(CodeSchemaViolation, "command", "give command (an allowlisted MCP command) or url (a streamable-HTTP server)")
	case command != "" && (len(command) > 256 || strings.ContainsFunc(command, func(r rune) bool { return r <= ' ' || r == 0x7f })):
		return errorf(CodeSchemaViolation, "command", "must name an allowlisted command: no spaces or control characters, at most 256 bytes")
	case rawURL != "":
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errorf(CodeSchemaViolation, "url", "must be an absolute http or https URL")
		}
		if u.User != nil {
			return errorf(CodeSchemaViolation, "url", "must not hold credentials; register them in the vault")
		}
	}
	return nil
}
