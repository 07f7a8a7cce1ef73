package op_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/vault"
)

// A credential bound to hosts is sent only to them: to another host the call
// is a PermissionError naming the credential and the host (never the value)
// before anything is sent, in the header and in the body; at a bound host,
// and unbound, it is sent as before. This is the send-time check behind
// validation's, for a plan compiled before the binding changed.
func TestApiCallCredentialHostBinding(t *testing.T) {
	up := newUpstream(t, nil)
	u, _ := url.Parse(up.URL)
	e := newEnv(t)
	mem := vault.NewMemory(nil)
	e.deps.Vault = mem
	e.deps.Permissions.Credentials = []string{"bound"}
	header := `{"method":"GET","url":"` + up.URL + `/x","headers":{"Authorization":{"credentialRef":{"id":"bound"}}},"cache":false,"outputPath":"/workflow/r"}`
	body := `{"method":"POST","url":"` + up.URL + `/x","body":{"k":{"credentialRef":{"id":"bound"}}},"outputPath":"/workflow/r"}`

	mem.Set("bound", op.Secret{Type: "bearer-token", Value: secret, Hosts: []string{"api.example.com", "127.0.0.1:1"}})
	for _, cfg := range []string{header, body} {
		_, err := e.run(t, cfg, nil)
		fe := asFault(t, err)
		if fe.SpecType() != fault.PermissionError || !strings.Contains(fe.Message, `"bound"`) ||
			!strings.Contains(fe.Message, u.Host) || strings.Contains(fe.Message, secret) {
			t.Fatalf("bound elsewhere: %s %s", fe.SpecType(), fe.Message)
		}
	}
	if up.hits.Load() != 0 {
		t.Fatalf("%d requests reached the server", up.hits.Load())
	}

	for _, hosts := range [][]string{{"api.example.com", u.Host}, {"127.0.0.1"}, nil} {
		mem.Set("bound", op.Secret{Type: "bearer-token", Value: secret, Hosts: hosts})
		if _, err := e.run(t, header, nil); err != nil {
			t.Fatalf("hosts %q: %v", hosts, err)
		}
	}
	if up.hits.Load() != 3 {
		t.Fatalf("%d requests, want 3", up.hits.Load())
	}
}
