package capability

import (
	"context"
	"net/url"
	"time"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// bindingLookupTimeout bounds the look-up of one credential's binding when a
// run is compiled; a look-up that fails leaves the check to send time.
const bindingLookupTimeout = 5 * time.Second

// checkBindings refuses, when a run is compiled, a service credential bound
// to hosts other than the one it would be sent to: the API's server for a
// token or key, the OAuth2 token endpoint for a client id and secret. The
// ApiCall and the token fetch check again when they send.
func checkBindings(env *op.Environment, t *a2s.Task, auth *serviceAuth, server string) error {
	hb, ok := env.Deps().Vault.(op.HostBindings)
	if !ok {
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
		ctx, cancel := context.WithTimeout(context.Background(), bindingLookupTimeout)
		hosts, _, err := hb.BoundHosts(ctx, id)
		cancel()
		host, port := u.Hostname(), egress.PortOf(u.Scheme, u.Port())
		if err == nil && !policy.CredentialMaySend(hosts, host, port) {
			return policy.CredentialHostDenied(id, hosts, host, port).WithOp(t.ID.Value)
		}
	}
	return nil
}
