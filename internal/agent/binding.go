package agent

import (
	"net"
	"net/url"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
)

// endpoint is the host and port an agent's URL sends to (port always set).
func endpoint(rawURL string) (host, port string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", ""
	}
	return u.Hostname(), egress.PortOf(u.Scheme, u.Port())
}

// checkBinding refuses to send credential id, resolved as sec, to the agent
// at rawURL when the credential is bound to other hosts: at registration,
// and again on every call (the binding may have changed since).
func checkBinding(id string, sec op.Secret, rawURL string) *fault.Error {
	host, port := endpoint(rawURL)
	if policy.CredentialMaySend(sec.Hosts, host, port) {
		return nil
	}
	return policy.CredentialHostDenied(id, sec.Hosts, host, port)
}

// bindingOf is the binding of a credential the registry takes in from an
// entry: the entry's own endpoint.
func bindingOf(rawURL string) []string {
	host, port := endpoint(rawURL)
	if host == "" {
		return nil
	}
	return []string{net.JoinHostPort(host, port)}
}
