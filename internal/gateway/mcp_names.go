package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// maxMCPToolName is the longest tool name MCP allows.
const maxMCPToolName = 128

// mcpToolNames gives each sluice tool name of one list the name an MCP host
// sees (MCP allows [A-Za-z0-9._-], at most 128 characters):
//
//   - a name that fits is kept as it is (op.FilterData, workflow.execute,
//     mcp.files.read_file);
//   - otherwise each character outside the set becomes '_' (cap.<ns>/<id>
//     is cap.<ns>_<id>);
//   - a name still too long, or one that would take a name already given,
//     is cut and ends in '-' and 8 hex digits of the SHA-256 of the sluice
//     name, so it stays the same from one listing to the next.
//
// Names that fit are given first, so they never change because of another
// tool. The mapping is not reversed by parsing: the session keeps the table
// (mcpTools), and a call's name is looked up in it.
func mcpToolNames(names []string) map[string]string {
	out := make(map[string]string, len(names))
	taken := make(map[string]bool, len(names))
	var rest []string
	for _, n := range names {
		if validMCPToolName(n) && !taken[n] {
			out[n], taken[n] = n, true
			continue
		}
		rest = append(rest, n)
	}
	slices.Sort(rest)
	for _, n := range rest {
		if _, done := out[n]; done {
			continue
		}
		m := mcpSafe(n)
		if len(m) > maxMCPToolName || m == "" || taken[m] {
			m = hashedName(m, n)
		}
		out[n], taken[m] = m, true
	}
	return out
}

// validMCPToolName says name is one MCP allows.
func validMCPToolName(name string) bool {
	return name != "" && len(name) <= maxMCPToolName && mcpSafe(name) == name
}

// mcpSafe replaces each character MCP does not allow in a tool name by '_'.
func mcpSafe(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
}

// hashedName is safe cut to leave room for '-' and 8 hex digits of the
// SHA-256 of original.
func hashedName(safe, original string) string {
	sum := sha256.Sum256([]byte(original))
	suffix := "-" + hex.EncodeToString(sum[:4])
	if len(safe) > maxMCPToolName-len(suffix) {
		safe = safe[:maxMCPToolName-len(suffix)]
	}
	return safe + suffix
}
