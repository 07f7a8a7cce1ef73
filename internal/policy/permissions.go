// Package policy holds what an account may do: its permissions and the checks
// against them. Policy lives here once; callers ask, they do not decide.
package policy

import (
	"net"
	"slices"
	"strings"
)

// Capability levels.
const (
	LevelBasic    = "basic"
	LevelElevated = "elevated"
	LevelAdmin    = "admin"
)

// Permissions are an account's grants, deny by default. Every field of
// RESOLUTIONS is present from the start, even where the feature lands later.
type Permissions struct {
	Operations      []string `json:"operations"`
	Hosts           []string `json:"hosts"` // "host", "host:port", "*.domain"
	APIs            []string `json:"apis"`  // "kb" or "kb.operationId"
	Credentials     []string `json:"credentials"`
	Agents          []string `json:"agents"`
	MCPServers      []string `json:"mcp_servers"`
	CapabilityLevel string   `json:"capability_level"`
	Capabilities    []string `json:"capabilities"`
	KnowledgeBases  []string `json:"knowledge_bases"`
}

// AllowsOperation reports whether the operation name is granted ("*" grants all).
func (p Permissions) AllowsOperation(name string) bool {
	return slices.Contains(p.Operations, name) || slices.Contains(p.Operations, "*")
}

// AllowsMCPServer reports whether the account may register, list the tools
// of and call the MCP server of that name ("*" grants all).
func (p Permissions) AllowsMCPServer(name string) bool {
	return slices.Contains(p.MCPServers, name) || slices.Contains(p.MCPServers, "*")
}

// AllowsAgent reports whether the account may invoke the HTTP task agent of
// that name ("*" grants all).
func (p Permissions) AllowsAgent(name string) bool {
	return slices.Contains(p.Agents, name) || slices.Contains(p.Agents, "*")
}

// AllowsCredential reports whether the credential id is granted.
func (p Permissions) AllowsCredential(id string) bool {
	return slices.Contains(p.Credentials, id) || slices.Contains(p.Credentials, "*")
}

// AllowsHost reports whether host (a name or IP, without port) on port may be
// reached. A grant "host" allows any port, "host:port" that port only, and
// "*.domain" any subdomain of domain (not domain itself). Names compare without
// case and without a trailing dot.
func (p Permissions) AllowsHost(host, port string) bool {
	return hostListAllows(p.Hosts, host, port)
}

// hostListAllows is the one matcher of host lists: account grants and
// credential bindings.
func hostListAllows(list []string, host, port string) bool {
	host = normalizeHost(host)
	for _, g := range list {
		if g == "*" {
			return true
		}
		gh, gp := splitGrant(g)
		if gp != "" && gp != port {
			continue
		}
		if strings.HasPrefix(gh, "*.") {
			if strings.HasSuffix(host, gh[1:]) && len(host) > len(gh)-1 {
				return true
			}
			continue
		}
		if gh == host {
			return true
		}
	}
	return false
}

// splitGrant splits "host:port" (or "[v6]:port") into host and port; a bare host
// (including a bare IPv6 address) has no port.
func splitGrant(g string) (string, string) {
	if h, p, err := net.SplitHostPort(g); err == nil {
		return normalizeHost(h), p
	}
	return normalizeHost(strings.Trim(g, "[]")), ""
}

func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// WithEmptyLists returns p with every absent list as an empty one, so that a
// JSON document shows [] rather than null.
func (p Permissions) WithEmptyLists() Permissions {
	for _, l := range []*[]string{&p.Operations, &p.Hosts, &p.APIs, &p.Credentials, &p.Agents, &p.MCPServers, &p.Capabilities, &p.KnowledgeBases} {
		if *l == nil {
			*l = []string{}
		}
	}
	return p
}
