package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// vault is a map of credentials.
type vault map[string]op.Secret

func (v vault) Resolve(_ context.Context, id string) (op.Secret, error) {
	s, ok := v[id]
	if !ok {
		return op.Secret{}, fault.New(fault.NotFound, "credential %q not found", id)
	}
	return s, nil
}

func withCredentials(p *account.Principal, ids ...string) *account.Principal {
	p.Permissions.Credentials = ids
	return p
}

// requireHeader answers 401 unless the request carries want in header.
func requireHeader(h http.Handler, header, want string, seen *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get(header) != want {
			seen.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, req)
	})
}

func hostPort(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// A URL server's registration names vault credentials for its headers: they
// are sent (a bearer token as "Bearer <value>"), only when the account is
// granted them and they are bound to the server's host, and never shown.
func TestCredentialHeaders(t *testing.T) {
	var refused atomic.Int32
	hs := httptest.NewServer(requireHeader(handlerOf(mcptest.NewServer(), nil), "Authorization", "Bearer s3cret-token", &refused))
	host := hostPort(t, hs.URL)
	v := vault{
		"mcp-token": {Type: "bearer-token", Value: "s3cret-token", Hosts: []string{host}},
		"elsewhere": {Type: "bearer-token", Value: "s3cret-token", Hosts: []string{"api.example.com"}},
		"wrong":     {Type: "bearer-token", Value: "not-it"},
	}
	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback, Vault: v})
	t.Cleanup(func() { r.Close(); hs.Close() })
	auth := func(id string) store.MCPServerAuth {
		a, err := mcp.ParseAuth(map[string]any{"Authorization": map[string]any{"credentialRef": map[string]any{"id": id}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	reg := func(p *account.Principal, id string) (mcp.Server, error) {
		return r.Register(ctx, p, mcp.Registration{Name: "web", URL: hs.URL, Auth: auth(id)})
	}
	// Without the header the server refuses.
	_, err := r.Register(ctx, principal("alice", "*"), mcp.Registration{Name: "web", URL: hs.URL})
	wantKind(t, err, fault.Upstream, "no credential")
	// Not granted, bound elsewhere, unknown.
	_, err = reg(principal("alice", "*"), "mcp-token")
	wantKind(t, err, fault.PermissionDenied, "credential not granted")
	_, err = reg(withCredentials(principal("alice", "*"), "elsewhere"), "elsewhere")
	wantKind(t, err, fault.PermissionDenied, "credential bound to another host")
	if !strings.Contains(err.Error(), "api.example.com") || !strings.Contains(err.Error(), "may not be sent") {
		t.Fatalf("binding refusal: %v", err)
	}
	_, err = reg(withCredentials(principal("alice", "*"), "nope"), "nope")
	wantKind(t, err, fault.NotFound, "unknown credential")
	// A plain value is not taken.
	if _, err := mcp.ParseAuth(map[string]any{"Authorization": "Bearer s3cret-token"}, nil); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a plain header value: %v", err)
	}
	alice := withCredentials(principal("alice", "*"), "mcp-token", "wrong")
	srv, err := reg(alice, "mcp-token")
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := json.Marshal(srv)
	if strings.Contains(string(shown), "s3cret") || !strings.Contains(string(shown), "mcp-token") {
		t.Fatalf("registration shows %s", shown)
	}
	res, err := r.Provider().Call(ctx, alice, "mcp.web.echo", map[string]any{"text": "hi"}, nil)
	if err != nil || !res.Success {
		t.Fatalf("call with the header: %+v %v", res, err)
	}
	// The grant narrows: calls are refused.
	_, err = r.Provider().Call(ctx, withCredentials(principal("alice", "*")), "mcp.web.echo", map[string]any{"text": "hi"}, nil)
	wantKind(t, err, fault.PermissionDenied, "call after the credential grant is gone")
	// A wrong credential: the server's refusal, without the value.
	r.Unregister(ctx, alice, "web")
	_, err = reg(alice, "wrong")
	if err == nil || strings.Contains(err.Error(), "not-it") {
		t.Fatalf("wrong credential: %v", err)
	}
}

// The OAuth client-credentials flow: the server answers 401 with its
// protected resource metadata; sluice finds the token endpoint in the
// authorization server's metadata, gets a token with the client id and
// secret from the vault, and calls with it.
func TestOAuthClientCredentials(t *testing.T) {
	var base string
	var tokens atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": base, "token_endpoint": base + "/token",
			"authorization_endpoint": base + "/authorize", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, req *http.Request) {
		if req.ParseForm() != nil || req.PostForm.Get("grant_type") != "client_credentials" ||
			req.PostForm.Get("client_id") != "sluice-client" || req.PostForm.Get("client_secret") != "cl1ent-s3cret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		tokens.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`))
	})
	mcpHandler := handlerOf(mcptest.NewServer(), nil)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "Bearer at-1" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, req)
	})
	hs := httptest.NewServer(mux)
	base = hs.URL
	host := hostPort(t, hs.URL)
	h, _, _ := net.SplitHostPort(host)
	v := vault{
		"cid":      {Type: "api-key", Value: "sluice-client"},
		"csecret":  {Type: "api-key", Value: "cl1ent-s3cret", Hosts: []string{host}},
		"badbound": {Type: "api-key", Value: "cl1ent-s3cret", Hosts: []string{"auth.example.com"}},
	}
	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback, Vault: v})
	t.Cleanup(func() { r.Close(); hs.Close() })
	oauth := func(secret string) store.MCPServerAuth {
		a, err := mcp.ParseAuth(nil, map[string]any{
			"clientId":     map[string]any{"credentialRef": map[string]any{"id": "cid"}},
			"clientSecret": map[string]any{"credentialRef": map[string]any{"id": secret}}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	alice := &account.Principal{ID: "alice", Permissions: policy.Permissions{MCPServers: []string{"*"}, Hosts: []string{h},
		Credentials: []string{"cid", "csecret", "badbound"}}}
	// A secret bound to another host is not sent to this token endpoint.
	_, err := r.Register(ctx, alice, mcp.Registration{Name: "web", URL: hs.URL + "/mcp", Auth: oauth("badbound")})
	if err == nil || tokens.Load() != 0 || !strings.Contains(err.Error(), "auth.example.com") {
		t.Fatalf("a secret bound elsewhere: %v (tokens %d)", err, tokens.Load())
	}
	if strings.Contains(err.Error(), "cl1ent-s3cret") {
		t.Fatalf("the secret is in the error: %v", err)
	}
	srv, err := r.Register(ctx, alice, mcp.Registration{Name: "web", URL: hs.URL + "/mcp", Auth: oauth("csecret")})
	if err != nil {
		t.Fatal(err)
	}
	if shown, _ := json.Marshal(srv); strings.Contains(string(shown), "s3cret") {
		t.Fatalf("registration shows %s", shown)
	}
	res, err := r.Provider().Call(ctx, alice, "mcp.web.add", map[string]any{"a": 1, "b": 2}, nil)
	if err != nil || !res.Success || tokens.Load() != 1 {
		t.Fatalf("call with a client-credentials token: %+v %v (tokens %d)", res, err, tokens.Load())
	}
}
