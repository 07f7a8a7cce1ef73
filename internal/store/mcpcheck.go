package store

import (
	"net/http"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// CheckMCPServer checks a registration before it is stored: the account id,
// a name of letters, digits, '_' and '-' (no '.', which separates the parts
// of the session tool name mcp.<server>.<tool>), and exactly one of Command
// and URL, each bounded. Whether the command is allowlisted and the URL may
// be reached is policy, decided before the store.
func CheckMCPServer(s MCPServer) error {
	if err := CheckID("account id", s.AccountID); err != nil {
		return err
	}
	if err := CheckMCPServerName(s.Name); err != nil {
		return err
	}
	switch {
	case s.Command == "" && s.URL == "":
		return invalid("mcp server", "needs a command or a url")
	case s.Command != "" && s.URL != "":
		return invalid("mcp server", "takes a command or a url, not both")
	}
	if err := CheckText("command", s.Command, MaxMCPCommandBytes, false); err != nil {
		return err
	}
	if err := CheckText("url", s.URL, MaxMCPURLBytes, false); err != nil {
		return err
	}
	if !s.Auth.IsZero() && s.Command != "" {
		return invalid("auth", "is for a server reached by url; a command server gets its environment from the server's allowlist")
	}
	return checkMCPServerAuth(s.Auth)
}

// reservedMCPHeaders are set by the MCP transport itself.
var reservedMCPHeaders = []string{"Accept", "Content-Type", "Content-Length", "Host", "Last-Event-Id",
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Connection", "Transfer-Encoding"}

func checkMCPServerAuth(a MCPServerAuth) error {
	if len(a.Headers) > MaxMCPHeaders {
		return invalid("headers", "has %d headers, over the limit of %d", len(a.Headers), MaxMCPHeaders)
	}
	for name, id := range a.Headers {
		field := "headers." + name
		if name == "" || len(name) > 64 || strings.IndexFunc(name, func(r rune) bool { return !isHeaderNameRune(r) }) >= 0 {
			return invalid("headers", "header name %q is not a valid HTTP header name of at most 64 bytes", boundedName(name))
		}
		if slices.Contains(reservedMCPHeaders, http.CanonicalHeaderKey(name)) {
			return invalid(field, "is set by the MCP transport and cannot be given")
		}
		if err := CheckID(field+".credentialRef.id", id); err != nil {
			return err
		}
	}
	if o := a.OAuth; o != nil {
		for name := range a.Headers {
			if http.CanonicalHeaderKey(name) == "Authorization" {
				return invalid("headers.Authorization", "cannot be given with oauth, whose token is the Authorization header")
			}
		}
		if err := CheckID("oauth.clientId.credentialRef.id", o.ClientID); err != nil {
			return err
		}
		if err := CheckID("oauth.clientSecret.credentialRef.id", o.ClientSecret); err != nil {
			return err
		}
	}
	return nil
}

// isHeaderNameRune is a token character of RFC 9110.
func isHeaderNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

func boundedName(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// CheckMCPServerName checks the name of an MCP server registration.
func CheckMCPServerName(name string) error {
	if name == "" {
		return invalid("name", "is required")
	}
	if len(name) > MaxMCPServerNameBytes {
		return invalid("name", "is %d bytes long, over the limit of %d", len(name), MaxMCPServerNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return invalid("name", "holds %q at byte %d; use letters, digits, '_' and '-'", rune(c), i)
		}
	}
	return nil
}

// MCPServersFull is the error when an account has registered all it may.
func MCPServersFull() *fault.Error {
	return fault.New(fault.Invalid, "at most %d MCP servers per account", MaxMCPServersPerAccount).
		WithSuggestions("Unregister a server you no longer use")
}

// MCPServerTaken is the error when a name is registered differently.
func MCPServerTaken(name string) *fault.Error {
	return fault.New(fault.Conflict, "an MCP server named %q is already registered differently", name).
		WithSuggestions("Unregister it first, or choose another name")
}
