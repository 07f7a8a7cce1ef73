package policy

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// Bounds of a permissions document.
const (
	maxGrants     = 1000
	maxGrantBytes = 255
)

// Validate checks every grant's form; the error names the first bad one by
// its path ("permissions.hosts[2]"). An empty capability_level means basic.
func (p Permissions) Validate() error {
	lists := []struct {
		name string
		vals []string
		host bool
	}{
		{"operations", p.Operations, false}, {"hosts", p.Hosts, true}, {"apis", p.APIs, false},
		{"credentials", p.Credentials, false}, {"agents", p.Agents, false}, {"mcp_servers", p.MCPServers, false},
		{"capabilities", p.Capabilities, false}, {"knowledge_bases", p.KnowledgeBases, false},
	}
	for _, l := range lists {
		if len(l.vals) > maxGrants {
			return grantError("permissions."+l.name, "holds %d grants; at most %d", len(l.vals), maxGrants)
		}
		for i, v := range l.vals {
			at := fmt.Sprintf("permissions.%s[%d]", l.name, i)
			if v == "" || len(v) > maxGrantBytes || strings.ContainsFunc(v, isSpaceOrControl) {
				return grantError(at, "must be 1 to %d characters without spaces or control characters", maxGrantBytes)
			}
			if l.host {
				if msg := checkHostGrant(v); msg != "" {
					return grantError(at, "%s", msg)
				}
			}
		}
	}
	switch p.CapabilityLevel {
	case "", LevelBasic, LevelElevated, LevelAdmin:
	default:
		return grantError("permissions.capability_level", "must be basic, elevated or admin, not %q", p.CapabilityLevel)
	}
	return nil
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

func grantError(path, format string, args ...any) *fault.Error {
	return fault.New(fault.Invalid, "%s %s", path, fmt.Sprintf(format, args...)).WithDetail("path", path)
}

// checkHostGrant checks "*", "host", "host:port" and "*.domain"; it returns
// what is wrong, or "".
func checkHostGrant(g string) string {
	if g == "*" {
		return ""
	}
	host, port := g, ""
	if h, p, err := net.SplitHostPort(g); err == nil {
		host, port = h, p
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("has a bad port %q", port)
		}
	}
	name := strings.TrimPrefix(host, "*.")
	if strings.Contains(name, "*") {
		return "may use * only as the whole grant or as a leading *. of a domain"
	}
	if net.ParseIP(name) != nil {
		return ""
	}
	for _, label := range strings.Split(strings.TrimSuffix(name, "."), ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return fmt.Sprintf("%q is not a host name", host)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Sprintf("%q is not a host name", host)
			}
		}
	}
	return ""
}
