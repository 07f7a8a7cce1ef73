package capability

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Service credentials (RESOLUTIONS): a run names, per service host, vault
// credential ids by field ({"api.weather.com": {"client_id": "<vault id>",
// ...}}), and the account must be granted each. A request of the service is
// sent with:
//
//   - access_token (or token): Authorization from the vault entry (a
//     bearer-token entry is sent as "Bearer <value>");
//   - api_key: the header of the request's apiKey security scheme, else
//     X-API-Key;
//   - client_id and client_secret, when the service declares
//     oauth2.token_url: an OAuth2 client-credentials token, fetched through
//     the egress client and cached per account until shortly before it
//     expires. The token is handed to ApiCall as a vault entry of its own, so
//     it never enters a configuration, a result or a log line.

// tokenCredentialID is the vault id under which a fetched token is handed to
// the request's ApiCall.
const tokenCredentialID = "a2s-oauth2-token"

// serviceAuth is how one task authenticates to its service.
type serviceAuth struct {
	host     string
	fields   map[string]string // field -> vault id
	tokenURL string
	scopes   []string
	apiKey   string // header of an apiKey scheme
	tokens   *TokenCache
	account  string
}

func (a *serviceAuth) apply(ctx context.Context, rc *op.RunContext, cfg *a2e.ApiCall, env *op.Environment) (*op.Environment, error) {
	ref := func(id string) json.RawMessage {
		var c a2e.CredentialRef
		c.CredentialRef.ID = id
		return mustJSON(c)
	}
	switch {
	case a.fields["access_token"] != "":
		cfg.Headers["Authorization"] = ref(a.fields["access_token"])
	case a.fields["token"] != "":
		cfg.Headers["Authorization"] = ref(a.fields["token"])
	case a.fields["api_key"] != "":
		h := a.apiKey
		if h == "" {
			h = "X-API-Key"
		}
		cfg.Headers[h] = ref(a.fields["api_key"])
	case a.fields["client_id"] != "" && a.fields["client_secret"] != "":
		if a.tokenURL == "" {
			return nil, fault.Typed(fault.Invalid, fault.ValidationError,
				"service %s takes client_id and client_secret but declares no oauth2.token_url", a.host).
				WithSuggestions("Name an access_token credential instead, or declare services." + a.host + ".oauth2.token_url")
		}
		token, err := a.tokens.token(ctx, env.Deps(), a.account, a.tokenURL, a.fields["client_id"], a.fields["client_secret"], a.scopes)
		if err != nil {
			return nil, err
		}
		d := *env.Deps()
		d.Vault = tokenVault{base: d.Vault, token: token}
		d.Permissions.Credentials = append(append([]string(nil), d.Permissions.Credentials...), tokenCredentialID)
		env = env.WithDeps(&d)
		cfg.Headers["Authorization"] = ref(tokenCredentialID)
	}
	return env, nil
}

// tokenVault resolves the fetched token under its own id.
type tokenVault struct {
	base  op.Vault
	token string
}

func (v tokenVault) Resolve(ctx context.Context, id string) (op.Secret, error) {
	if id == tokenCredentialID {
		return op.Secret{Type: "bearer-token", Value: v.token}, nil
	}
	if v.base == nil {
		return op.Secret{}, fault.New(fault.NotFound, "credential %q not found", id)
	}
	return v.base.Resolve(ctx, id)
}

// TokenCache keeps OAuth2 tokens per account, token URL, client and scopes.
// Keys hash the ids; values never leave it but into a request header.
type TokenCache struct {
	mu     sync.Mutex
	tokens map[string]cachedToken
	now    func() time.Time
}

type cachedToken struct {
	value   string
	expires time.Time
}

// NewTokenCache makes an empty cache.
func NewTokenCache() *TokenCache {
	return &TokenCache{tokens: map[string]cachedToken{}, now: time.Now}
}

const maxTokenResponse = 64 << 10

func (c *TokenCache) token(ctx context.Context, d *op.Deps, account, tokenURL, idRef, secretRef string, scopes []string) (string, error) {
	for _, id := range []string{idRef, secretRef} {
		if !d.Permissions.AllowsCredential(id) {
			return "", fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not granted to this account", id).
				WithSuggestions("Ask an admin to grant it in credentials")
		}
	}
	h := sha256.Sum256([]byte(account + "\x00" + tokenURL + "\x00" + idRef + "\x00" + secretRef + "\x00" + strings.Join(scopes, " ")))
	key := hex.EncodeToString(h[:])
	c.mu.Lock()
	if t, ok := c.tokens[key]; ok && c.now().Before(t.expires) {
		c.mu.Unlock()
		return t.value, nil
	}
	c.mu.Unlock()

	u, err := url.Parse(tokenURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fault.Typed(fault.Invalid, fault.ValidationError, "oauth2.token_url %q is not an http(s) URL", tokenURL)
	}
	if !d.Permissions.AllowsHost(u.Hostname(), egress.PortOf(u.Scheme, u.Port())) {
		return "", fault.Typed(fault.PermissionDenied, fault.PermissionError, "the token endpoint %s is not among this account's hosts", u.Host)
	}
	if d.Vault == nil || d.Client == nil {
		return "", fault.New(fault.Unavailable, "no vault or HTTP client to fetch an OAuth2 token with")
	}
	id, err := d.Vault.Resolve(ctx, idRef)
	if err != nil {
		return "", err
	}
	secret, err := d.Vault.Resolve(ctx, secretRef)
	if err != nil {
		return "", err
	}
	host, port := u.Hostname(), egress.PortOf(u.Scheme, u.Port())
	for _, c := range []struct {
		ref string
		sec op.Secret
	}{{idRef, id}, {secretRef, secret}} {
		if !policy.CredentialMaySend(c.sec.Hosts, host, port) {
			return "", policy.CredentialHostDenied(c.ref, c.sec.Hosts, host, port)
		}
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fault.New(fault.Internal, "the token request could not be made")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(id.Value), url.QueryEscape(secret.Value))
	resp, err := d.Client.Do(req)
	if err != nil {
		if _, denied := egress.IsDenied(err); denied {
			return "", fault.Typed(fault.PermissionDenied, fault.PermissionError, "the token endpoint %s may not be reached", u.Host)
		}
		return "", fault.New(fault.Upstream, "the token endpoint %s did not answer", u.Host).Retry(0)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	if resp.StatusCode/100 != 2 {
		// The body may echo what was sent; it is not quoted.
		return "", fault.New(fault.Upstream, "the token endpoint %s answered %d", u.Host, resp.StatusCode).WithDetail("statusCode", resp.StatusCode)
	}
	var tr struct {
		AccessToken string  `json:"access_token"`
		ExpiresIn   float64 `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return "", fault.New(fault.Upstream, "the token endpoint %s gave no access_token", u.Host)
	}
	ttl := time.Duration(tr.ExpiresIn) * time.Second
	if ttl <= 0 {
		ttl = 5 * time.Minute
	}
	ttl -= 30 * time.Second // never send a token about to expire
	if ttl > 0 {
		c.mu.Lock()
		c.tokens[key] = cachedToken{value: tr.AccessToken, expires: c.now().Add(ttl)}
		c.mu.Unlock()
	}
	return tr.AccessToken, nil
}
