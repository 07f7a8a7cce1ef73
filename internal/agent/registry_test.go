package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

const token = "secret-token-123"

func bearerEntry(name, url, tok string) agenthttp.Entry {
	e := agenthttp.NewEntry(name, url)
	e.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.PlainSecret(tok)}
	return e
}

func TestRegisterMovesSecretsIntoTheVault(t *testing.T) {
	e := newEnv(t)
	got, created, err := e.reg.Register(ctx, bearerEntry("ResearchAgent", "http://127.0.0.1:8080", token))
	if err != nil || !created {
		t.Fatal(err, created)
	}
	ref := got.Auth.Token.Ref()
	if !strings.HasPrefix(ref, "agent.ResearchAgent.token.") || strings.Contains(ref, token) {
		t.Fatalf("reference %q", ref)
	}
	// The store holds the reference, never the value.
	stored, err := e.store.GetAgent(ctx, "ResearchAgent")
	if err != nil || strings.Contains(string(stored.Entry), token) || !strings.Contains(string(stored.Entry), ref) {
		t.Fatalf("stored %s %v", stored.Entry, err)
	}
	// The vault holds the value as a bearer token.
	sec, err := e.vault.Resolve(ctx, ref)
	if err != nil || sec.Value != token || sec.Type != "bearer-token" {
		t.Fatalf("vault: %v %v", sec, err)
	}
	// Get and List give the reference.
	g, err := e.reg.Get(ctx, "ResearchAgent")
	if err != nil || g.Auth.Token.Ref() != ref || g.URL != "http://127.0.0.1:8080" {
		t.Fatalf("get: %+v %v", g, err)
	}
	list, err := e.reg.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "ResearchAgent" {
		t.Fatalf("list: %+v %v", list, err)
	}

	// Registering again replaces: a new vault entry, the old one deleted.
	again, created, err := e.reg.Register(ctx, bearerEntry("ResearchAgent", "http://127.0.0.1:9090", "another-token-456"))
	if err != nil || created {
		t.Fatal(err, created)
	}
	ref2 := again.Auth.Token.Ref()
	if ref2 == ref {
		t.Fatal("the replacement reuses the vault id")
	}
	if _, err := e.vault.Resolve(ctx, ref); err == nil {
		t.Fatal("the replaced vault entry is still there")
	}
	if g, _ := e.reg.Get(ctx, "ResearchAgent"); g.URL != "http://127.0.0.1:9090" || g.Auth.Token.Ref() != ref2 {
		t.Fatalf("get after replace: %+v", g)
	}

	// Remove deletes the entry and its vault entry.
	if err := e.reg.Remove(ctx, "ResearchAgent"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.vault.Resolve(ctx, ref2); err == nil {
		t.Fatal("removing left the vault entry")
	}
	_, err = e.reg.Get(ctx, "ResearchAgent")
	wantKind(t, err, fault.NotFound, "a removed agent")
	wantKind(t, e.reg.Remove(ctx, "ResearchAgent"), fault.NotFound, "removing twice")
	if list, _ := e.reg.List(ctx); len(list) != 0 {
		t.Fatalf("list after remove: %+v", list)
	}
	if strings.Contains(e.logs.String(), token) || strings.Contains(e.logs.String(), "another-token-456") {
		t.Fatalf("a token reached the log:\n%s", e.logs)
	}
}

func TestRegisterKeepsReferences(t *testing.T) {
	e := newEnv(t)
	if _, err := e.vault.Put(ctx, vault.Entry{ID: "shared-key", Type: "api-key", Value: vault.NewPlaintext("sk-shared")}); err != nil {
		t.Fatal(err)
	}
	en := agenthttp.NewEntry("a", "https://a.example.com")
	en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthAPIKey, Key: agenthttp.SecretRef("shared-key")}
	got, _, err := e.reg.Register(ctx, en)
	if err != nil || got.Auth.Key.Ref() != "shared-key" {
		t.Fatalf("%+v %v", got, err)
	}
	// A credential the registry did not make is not its to delete.
	if err := e.reg.Remove(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.vault.Resolve(ctx, "shared-key"); err != nil {
		t.Fatal("removing an agent deleted a credential it only referred to")
	}
	// A reference to nothing is refused, naming the field.
	en.Auth.Key = agenthttp.SecretRef("missing")
	_, _, err = e.reg.Register(ctx, en)
	fe := wantKind(t, err, fault.Invalid, "a reference to a missing credential")
	if fe.Details["field"] != "auth_config.key" {
		t.Fatalf("%v", fe.Details)
	}
}

func TestRegisterHeadersSecrets(t *testing.T) {
	e := newEnv(t)
	en := agenthttp.NewEntry("h", "https://h.example.com")
	en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthHeaders, Headers: map[string]agenthttp.Secret{
		"X-Tenant": agenthttp.PlainSecret("acme-tenant"), "X-Weird!Name": agenthttp.PlainSecret("v-weird")}}
	got, _, err := e.reg.Register(ctx, en)
	if err != nil {
		t.Fatal(err)
	}
	fs := got.Secrets()
	if len(fs) != 2 || !strings.HasPrefix(fs[0].Secret.Ref(), "agent.h.header-x-tenant.") ||
		!strings.HasPrefix(fs[1].Secret.Ref(), "agent.h.header-x-weird_name.") {
		t.Fatalf("%+v", fs)
	}
	if en.HasPlainSecrets() == false {
		t.Fatal("Register changed the caller's entry")
	}
}

func TestRegisterRefusals(t *testing.T) {
	e := newEnv(t)
	bad := map[string]struct {
		en   agenthttp.Entry
		kind fault.Kind
	}{
		"bad name":         {agenthttp.NewEntry("a.b", "https://a.example.com"), fault.Invalid},
		"ftp":              {agenthttp.NewEntry("a", "ftp://a.example.com"), fault.Invalid},
		"loopback":         {agenthttp.NewEntry("a", "http://127.0.0.2:8080"), fault.PermissionDenied},
		"localhost":        {agenthttp.NewEntry("a", "http://localhost:8080"), fault.PermissionDenied},
		"private":          {agenthttp.NewEntry("a", "http://10.1.2.3"), fault.PermissionDenied},
		"link-local":       {agenthttp.NewEntry("a", "http://169.254.169.254/latest"), fault.PermissionDenied},
		"v6 loopback":      {agenthttp.NewEntry("a", "http://[::1]:80"), fault.PermissionDenied},
		"zero retry":       {agenthttp.Entry{Name: "a", URL: "https://a.example.com", Timeout: 1000}, fault.Invalid},
		"newline in token": {bearerEntry("a", "https://a.example.com", "tok\r\nX: 1"), fault.Invalid},
	}
	for name, tc := range bad {
		_, _, err := e.reg.Register(ctx, tc.en)
		fe := wantKind(t, err, tc.kind, name)
		if strings.Contains(fe.Message, "tok\r\n") {
			t.Fatalf("%s: %q", name, fe.Message)
		}
	}
	if list, _ := e.reg.List(ctx); len(list) != 0 {
		t.Fatalf("refused entries were stored: %+v", list)
	}
	vs, _ := e.vault.List(ctx)
	if len(vs) != 0 {
		t.Fatalf("refused entries left vault entries: %+v", vs)
	}
	// The allowlist opens the gate: 127.0.0.1 is listed in newEnv.
	if _, _, err := e.reg.Register(ctx, agenthttp.NewEntry("a", "http://127.0.0.1:8080")); err != nil {
		t.Fatal(err)
	}
}

func TestEgressCheckedAtCall(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, ok(`{}`))
	e.register(t, "local", s.srv.URL, nil)
	// Another server process over the same store, whose rule does not list
	// the address: the call is refused before anything is sent.
	strict := agent.NewRegistry(agent.RegistryOptions{Store: e.store, Vault: e.vault})
	inv := agent.NewInvoker(agent.InvokerOptions{Registry: strict, Clock: e.clock})
	_, err := inv.Invoke(ctx, "local", "t", nil, "")
	wantKind(t, err, fault.PermissionDenied, "a loopback agent without allowlist")
	if s.calls() != 0 {
		t.Fatalf("%d requests reached a refused agent", s.calls())
	}
	// The dial-time rule holds even when a check above is bypassed: an
	// egress client without the allowlist refuses the connection.
	loose := agent.NewRegistry(agent.RegistryOptions{Store: e.store, Vault: e.vault, Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}})
	inv2 := agent.NewInvoker(agent.InvokerOptions{Registry: loose, Client: egress.NewClient(egress.Policy{}), Clock: e.clock})
	_, err = inv2.Invoke(ctx, "local", "t", nil, "")
	wantKind(t, err, fault.PermissionDenied, "a dial-time refusal")
	if s.calls() != 0 {
		t.Fatalf("%d requests passed the dialer", s.calls())
	}
}

func TestCacheSeesOwnChanges(t *testing.T) {
	e := newEnv(t)
	e.register(t, "a", "https://one.example.com", nil)
	if g, _ := e.reg.Get(ctx, "a"); g.URL != "https://one.example.com" {
		t.Fatal(g.URL)
	}
	e.register(t, "a", "https://two.example.com", nil)
	if g, _ := e.reg.Get(ctx, "a"); g.URL != "https://two.example.com" {
		t.Fatalf("stale cache: %s", g.URL)
	}
	// Another process's change is seen once the cache entry ages out.
	other := agent.NewRegistry(agent.RegistryOptions{Store: e.store, Vault: e.vault})
	if _, _, err := other.Register(ctx, agenthttp.NewEntry("a", "https://three.example.com")); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(agentCacheTTL)
	if g, _ := e.reg.Get(ctx, "a"); g.URL != "https://three.example.com" {
		t.Fatalf("after the TTL: %s", g.URL)
	}
}

const agentCacheTTL = 5 * time.Second // the default

var _ agent.Vault = (*vault.Sealed)(nil)
