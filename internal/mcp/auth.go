package mcp

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/vault/redact"
)

// ParseAuth reads a registration's credentials as callers give them, in
// ApiCall's form: headers {"Name": {"credentialRef": {"id": "..."}}} and
// oauth {"clientId": {"credentialRef": ...}, "clientSecret": {"credentialRef":
// ...}}. A plain value is refused: secrets live in the vault.
func ParseAuth(headers, oauth map[string]any) (store.MCPServerAuth, error) {
	var a store.MCPServerAuth
	for name, v := range headers {
		id, err := credentialRef(v, "headers."+name)
		if err != nil {
			return a, err
		}
		if a.Headers == nil {
			a.Headers = map[string]string{}
		}
		a.Headers[name] = id
	}
	if oauth != nil {
		for k := range oauth {
			if k != "clientId" && k != "clientSecret" {
				return a, fault.New(fault.Invalid, "oauth.%s: unknown field; oauth takes clientId and clientSecret (scopes come from the server's metadata)", k).WithDetail("field", "oauth."+k)
			}
		}
		o := &store.MCPOAuth{}
		var err error
		if o.ClientID, err = credentialRef(oauth["clientId"], "oauth.clientId"); err != nil {
			return a, err
		}
		if o.ClientSecret, err = credentialRef(oauth["clientSecret"], "oauth.clientSecret"); err != nil {
			return a, err
		}
		a.OAuth = o
	}
	return a, nil
}

// credentialRef reads {"credentialRef": {"id": "..."}}.
func credentialRef(v any, field string) (string, error) {
	bad := fault.New(fault.Invalid, `%s: want {"credentialRef": {"id": "..."}}; a value given as is would be stored, so secrets are named from the vault`, field).
		WithDetail("field", field).WithSuggestions("Store the secret with sluice vault put, bound to the server's host, and name it here")
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return "", bad
	}
	ref, ok := obj["credentialRef"].(map[string]any)
	if !ok || len(ref) != 1 {
		return "", bad
	}
	id, ok := ref["id"].(string)
	if !ok || id == "" {
		return "", bad
	}
	return id, nil
}

// checkCredentialGrants refuses a registration naming a credential the
// account may not use; checked on every use, as grants change.
func checkCredentialGrants(p policy.Permissions, a store.MCPServerAuth) error {
	for _, id := range a.CredentialIDs() {
		if !p.AllowsCredential(id) {
			return fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not permitted for this account", id).
				WithDetail("credentialId", id).WithDetail("field", "auth").WithSuggestions("Ask an admin to grant it in credentials")
		}
	}
	return nil
}

// serverAuth is a URL server's credentials, resolved for one connection.
// It prints as nothing (String), so a value never reaches a log.
type serverAuth struct {
	headers              http.Header
	oauthID, oauthSecret string // set: the OAuth client-credentials flow
	// secretHosts is the binding of the OAuth client secret (empty:
	// unbound): a token request to another host is refused.
	secretHosts []string
	scrub       *redact.Redactor
}

// resolveAuth opens the registration's credentials. A header credential
// bound to hosts that do not include the server's is refused, as ApiCall
// refuses it for another URL; so is a value that cannot be a header.
func (r *Registry) resolveAuth(ctx context.Context, reg store.MCPServer) (*serverAuth, error) {
	sa := &serverAuth{headers: http.Header{}, scrub: redact.New()}
	if reg.Auth.IsZero() {
		return sa, nil
	}
	if r.o.Vault == nil {
		return nil, fault.New(fault.Unavailable, "MCP server %q names vault credentials, and this server has no vault", reg.Name)
	}
	host, port := endpoint(reg.URL)
	resolve := func(id, field string) (op.Secret, error) {
		sec, err := r.o.Vault.Resolve(ctx, id)
		if err != nil {
			fe := fault.From(err)
			return sec, fault.New(fe.Kind, "MCP server %q: credential %q of %s cannot be used: %s", reg.Name, id, field, fe.Message).
				WithDetail("credentialId", id).WithDetail("field", field).WithCause(err)
		}
		return sec, nil
	}
	var values []string
	for name, id := range reg.Auth.Headers {
		sec, err := resolve(id, "headers."+name)
		if err != nil {
			return nil, err
		}
		if !policy.CredentialMaySend(sec.Hosts, host, port) {
			return nil, policy.CredentialHostDenied(id, sec.Hosts, host, port).WithDetail("field", "headers."+name)
		}
		v := sec.Value
		if sec.Type == "bearer-token" && !strings.HasPrefix(strings.ToLower(v), "bearer ") {
			v = "Bearer " + v
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fault.New(fault.Invalid, "MCP server %q: credential %q cannot be sent in header %s", reg.Name, id, name)
		}
		sa.headers.Set(name, v)
		values = append(values, sec.Value)
	}
	if o := reg.Auth.OAuth; o != nil {
		cid, err := resolve(o.ClientID, "oauth.clientId")
		if err != nil {
			return nil, err
		}
		secret, err := resolve(o.ClientSecret, "oauth.clientSecret")
		if err != nil {
			return nil, err
		}
		sa.secretHosts = secret.Hosts
		values = append(values, secret.Value)
		sa.oauthID, sa.oauthSecret = cid.Value, secret.Value
	}
	sa.scrub = redact.New(values...)
	return sa, nil
}

// newOAuth is the SDK's client-credentials handler over client, the
// connection's HTTP client (so discovery and the token request pass the
// same gates as the MCP requests).
func (sa *serverAuth) newOAuth(client *http.Client) (auth.OAuthHandler, error) {
	if sa.oauthID == "" {
		return nil, nil
	}
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: sa.oauthID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: sa.oauthSecret}},
		HTTPClient:  client,
	})
	if err != nil {
		return nil, fault.New(fault.Invalid, "the OAuth client credentials cannot be used: %s", sa.scrub.Scrub(err.Error()))
	}
	return h, nil
}

// endpoint is the host and port of a URL (port always set).
func endpoint(rawURL string) (host, port string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", ""
	}
	return u.Hostname(), egress.PortOf(u.Scheme, u.Port())
}

// origin is scheme://host:port of a URL, the unit credentials are sent to.
func origin(u *url.URL) string {
	return u.Scheme + "://" + net.JoinHostPort(u.Hostname(), egress.PortOf(u.Scheme, u.Port()))
}

func (sa *serverAuth) String() string { return "serverAuth([REDACTED])" }
