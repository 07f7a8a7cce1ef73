package policy

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// MaxCredentialHosts bounds the hosts one credential may be bound to.
const MaxCredentialHosts = 100

// A credential may be bound to the hosts it is meant for ("host",
// "host:port", "*.domain", as in a host grant, but never "*"): it is then
// sent nowhere else, whatever an account's grants allow, so an upstream that
// answers with a transform of it cannot be made to receive it by a workflow
// in the first place. An empty list is an unbound credential (the records of
// earlier versions): it goes wherever the account may reach.

// CredentialMaySend reports whether a credential bound to hosts may be sent
// to host (a name or IP, without port) on port.
func CredentialMaySend(hosts []string, host, port string) bool {
	return len(hosts) == 0 || hostListAllows(hosts, host, port)
}

// CredentialHostDenied is the error for a bound credential about to be sent
// to host:port. It names the credential and the host, never the value.
func CredentialHostDenied(id string, hosts []string, host, port string) *fault.Error {
	target := net.JoinHostPort(host, port)
	return fault.Typed(fault.PermissionDenied, fault.PermissionError,
		"credential %q is bound to %s and may not be sent to %s", id, strings.Join(hosts, ", "), target).
		WithDetail("credentialId", id).WithDetail("host", target).
		WithSuggestions("Send it only to the hosts it is bound to, or ask an administrator to bind it to " + target)
}

// NormalizeCredentialHosts checks a binding list and returns it in canonical
// form: lower case, no trailing dot, sorted, without duplicates; nil when
// empty. The error
// names the first bad entry by its path ("hosts[2]").
func NormalizeCredentialHosts(hosts []string) ([]string, error) {
	if len(hosts) > MaxCredentialHosts {
		return nil, fault.New(fault.Invalid, "credential hosts: %d given; at most %d", len(hosts), MaxCredentialHosts).
			WithDetail("field", "hosts")
	}
	if len(hosts) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(hosts))
	for i, h := range hosts {
		at := fmt.Sprintf("hosts[%d]", i)
		if h == "" || len(h) > maxGrantBytes || strings.ContainsFunc(h, isSpaceOrControl) {
			return nil, grantError(at, "must be 1 to %d characters without spaces or control characters", maxGrantBytes)
		}
		if h == "*" {
			return nil, grantError(at, "may not be *: a credential bound to every host is not bound").
				WithSuggestions("Name the hosts the credential is for, e.g. api.example.com or api.example.com:8443")
		}
		if msg := checkHostGrant(h); msg != "" {
			return nil, grantError(at, "%s", msg)
		}
		gh, gp := splitGrant(h)
		switch {
		case gp != "":
			gh = net.JoinHostPort(gh, gp)
		case strings.Contains(gh, ":"): // a bare IPv6 address keeps its brackets
			gh = "[" + gh + "]"
		}
		out = append(out, gh)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
