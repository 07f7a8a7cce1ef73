package agent_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// A credential bound to hosts goes to an agent only at one of them: an entry
// naming it at another host is refused at registration, a call after the
// binding changed is refused before anything is sent, and a value the
// registry takes in is bound to the entry's own endpoint. An unbound
// credential (a record of an earlier version) works as before.
func TestCredentialHostBinding(t *testing.T) {
	e := newEnv(t)
	var sent int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"task_id":"task-1","status":"success","output":{}}`))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	entry := func(ref string) agenthttp.Entry {
		en := agenthttp.NewEntry("bound", srv.URL)
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.SecretRef(ref)}
		return en
	}
	putCred := func(id string, hosts ...string) {
		if _, err := e.vault.Put(ctx, vault.Entry{ID: id, Type: "bearer-token", Hosts: hosts, Value: vault.NewPlaintext("tok-" + id + "-0042")}); err != nil {
			t.Fatal(err)
		}
	}

	putCred("elsewhere", "api.example.com")
	_, _, err := e.reg.Register(ctx, entry("elsewhere"))
	fe := fault.From(err)
	if fe.Type != fault.PermissionError || !strings.Contains(fe.Message, `"elsewhere"`) || !strings.Contains(fe.Message, host) ||
		strings.Contains(fe.Message, "tok-elsewhere") {
		t.Fatalf("registration with a credential bound elsewhere: %+v", fe)
	}

	putCred("here", host)
	if _, _, err := e.reg.Register(ctx, entry("here")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.inv.Invoke(ctx, "bound", "task-1", nil, ""); err != nil || sent != 1 {
		t.Fatalf("invoke at the bound host: %v (sent %d)", err, sent)
	}
	putCred("here", "api.example.com") // rebound since registration
	_, err = e.inv.Invoke(ctx, "bound", "task-1", nil, "")
	if fault.From(err).Type != fault.PermissionError || sent != 1 {
		t.Fatalf("invoke after the binding moved: %v (sent %d)", err, sent)
	}

	putCred("unbound")
	if _, _, err := e.reg.Register(ctx, entry("unbound")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.inv.Invoke(ctx, "bound", "task-1", nil, ""); err != nil || sent != 2 {
		t.Fatalf("invoke with an unbound credential: %v (sent %d)", err, sent)
	}

	got, _, err := e.reg.Register(ctx, bearerEntry("taken-in", srv.URL, "tok-given-0042"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := e.vault.Describe(ctx, got.Auth.Token.Ref())
	if err != nil || !slices.Equal(md.Hosts, []string{host}) {
		t.Fatalf("a value taken in is bound to %q, want [%s] (%v)", md.Hosts, host, err)
	}
}
