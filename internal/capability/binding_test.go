package capability_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault"
)

// A service credential bound to other hosts than the service's is refused
// when the run is compiled, and never sent by a run compiled before the
// binding: not to the API (the ApiCall's send-time check), and not to the
// OAuth2 token endpoint (client_id and client_secret).
func TestServiceCredentialHostBinding(t *testing.T) {
	for _, bound := range []string{"wx-token", "tw-secret"} {
		t.Run(bound, func(t *testing.T) {
			a := newAPIs(t)
			mem := vault.NewMemory(secrets)
			env := op.NewEnvironment(&op.Deps{
				Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1"}}),
				Permissions: policy.Permissions{Hosts: []string{"127.0.0.1"}, Credentials: []string{"wx-token", "tw-id", "tw-secret"}},
				Vault:       mem,
				Limits:      op.DefaultLimits(),
			}, op.Builtins()...)
			compile := func() (*capability.Compiled, error) {
				return capability.Compile(weatherDoc(t, a), capability.Options{Env: env, Account: "acct", Credentials: creds,
					Tokens: capability.NewTokenCache()})
			}
			c, err := compile() // unbound: compiles
			if err != nil {
				t.Fatal(err)
			}
			s := secrets[bound]
			s.Hosts = []string{"api.example.com"}
			mem.Set(bound, s)
			_, err = compile()
			if fe := fault.From(err); fe.Type != fault.PermissionError || !strings.Contains(fe.Message, `"`+bound+`"`) {
				t.Fatalf("compiling with %s bound elsewhere: %v", bound, err)
			}
			// The run compiled before the binding: refused when sending.
			r := capability.Run(context.Background(), engine.New(engine.Options{}), c,
				capability.RunOptions{Account: "acct", Inputs: map[string]any{"city": "San Francisco", "threshold": 1.0}})
			b, _ := json.Marshal(r)
			if r.Status == engine.StatusSuccess || !strings.Contains(string(b), "PermissionError") || !strings.Contains(string(b), bound) {
				t.Fatalf("status %s: %s", r.Status, b)
			}
			if bound == "wx-token" && len(a.auth) != 0 {
				t.Fatalf("the weather API received %q", a.auth)
			}
			if bound == "tw-secret" && a.tokens.Load() != 0 {
				t.Fatal("the token endpoint received the client secret")
			}
		})
	}
}
