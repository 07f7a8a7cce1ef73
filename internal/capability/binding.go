package capability

import (
	"net/url"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// checkBindings refuses, when a run is compiled, a service credential bound
// to hosts other than the one it would be sent to: the API's server for a
// token or key, the OAuth2 token endpoint for a client id and secret. The
// ApiCall and the token fetch check again when they send.
func checkBindings(env *op.Environment, t *a2s.Task, auth *serviceAuth, server string) error {
	lookup := op.BindingLookup(env.Deps().Vault)
	if lookup == nil {
		return nil
	}
	for field, id := range auth.fields {
		target := server
		if field == "client_id" || field == "client_secret" {
			target = auth.tokenURL
		}
		u, err := url.Parse(target)
		if err != nil || u.Host == "" {
			continue // the request or the token fetch reports it
		}
		hosts := lookup(id)
		host, port := u.Hostname(), egress.PortOf(u.Scheme, u.Port())
		if !policy.CredentialMaySend(hosts, host, port) {
			return policy.CredentialHostDenied(id, hosts, host, port).WithOp(t.ID.Value)
		}
	}
	return nil
}
