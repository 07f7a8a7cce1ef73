package cli_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// adminServer starts a server and points SLUICE_URL and SLUICE_ADMIN_KEY at it.
func adminServer(t *testing.T) *httptest.Server {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Server.Handler())
	t.Cleanup(func() { srv.Close(); _ = app.Close() })
	t.Setenv("SLUICE_URL", srv.URL)
	t.Setenv("SLUICE_ADMIN_KEY", app.AdminKey)
	return srv
}

func TestAccountsAndVaultCommands(t *testing.T) {
	adminServer(t)
	code, out, errOut := sluice(t, "", "accounts", "create", "--name", "ci bot", "--operations", "ApiCall,FilterData", "--hosts", "api.example.com", "--limit", "requests_per_minute=120")
	if code != cli.ExitOK {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	var created struct {
		AgentID string `json:"agent_id"`
		APIKey  string `json:"api_key"`
		KeyID   string `json:"key_id"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || !strings.HasPrefix(created.APIKey, "slk_") {
		t.Fatalf("create output: %s", out)
	}
	code, out, _ = sluice(t, "", "accounts", "list")
	if code != 0 || !strings.Contains(out, created.AgentID) || strings.Contains(out, created.APIKey) {
		t.Fatalf("list: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "accounts", "update", created.AgentID, "--operations", "Wait", "--disable")
	if code != 0 || !strings.Contains(out, `"disabled": true`) || !strings.Contains(out, `"Wait"`) {
		t.Fatalf("update: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "accounts", "rotate", created.AgentID, "--revoke-old")
	if code != 0 || !strings.Contains(out, created.KeyID) {
		t.Fatalf("rotate: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "accounts", "get", created.AgentID)
	if code != 0 || strings.Count(out, `"revoked_at"`) != 1 {
		t.Fatalf("get after rotate: %d %s", code, out)
	}

	// The vault value comes from stdin and is never printed.
	const secret = "cli-secret-value-6612"
	code, out, errOut = sluice(t, secret+"\n", "vault", "put", "weather", "--type", "bearer-token", "--description", "weather API")
	if code != 0 || strings.Contains(out+errOut, secret) || !strings.Contains(out, `"weather"`) {
		t.Fatalf("vault put: %d %s %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "vault", "list")
	if code != 0 || !strings.Contains(out, "bearer-token") || strings.Contains(out, secret) {
		t.Fatalf("vault list: %d %s", code, out)
	}
	if !strings.Contains(out, `"hosts": []`) {
		t.Fatalf("an unbound credential lists no hosts: %s", out)
	}
	// --host binds it; the binding shows in the answer and the list.
	code, out, errOut = sluice(t, secret+"\n", "vault", "put", "bound", "--type", "api-key", "--host", "API.example.com", "--host", "uploads.example.com:8443")
	if code != 0 || !strings.Contains(out, `"api.example.com"`) || !strings.Contains(out, `"uploads.example.com:8443"`) {
		t.Fatalf("vault put --host: %d %s %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "vault", "list")
	if code != 0 || !strings.Contains(out, `"uploads.example.com:8443"`) {
		t.Fatalf("vault list with a bound credential: %d %s", code, out)
	}
	code, _, errOut = sluice(t, secret+"\n", "vault", "put", "star", "--type", "api-key", "--host", "*")
	if code != cli.ExitInvalid || !strings.Contains(errOut, "hosts[0]") {
		t.Fatalf("vault put --host '*': %d %s", code, errOut)
	}
	code, _, errOut = sluice(t, "", "vault", "put", "x", "--type", "api-key", "--value", "plain-text")
	if code != cli.ExitInvalid || strings.Contains(errOut, "plain-text") {
		t.Fatalf("a value on the command line: %d %s", code, errOut)
	}
	code, _, _ = sluice(t, "", "vault", "delete", "weather")
	if code != 0 {
		t.Fatal("vault delete failed")
	}
	// Errors of the server exit 1 and say why.
	code, _, errOut = sluice(t, "", "accounts", "get", "acct-missing")
	if code != cli.ExitFailed || !strings.Contains(errOut, "404") {
		t.Fatalf("missing account: %d %s", code, errOut)
	}
	code, _, errOut = sluice(t, "", "accounts", "create", "--name", "x", "--limit", "rpm")
	if code != cli.ExitInvalid {
		t.Fatalf("bad --limit: %d %s", code, errOut)
	}
	t.Setenv("SLUICE_ADMIN_KEY", "")
	code, _, errOut = sluice(t, "", "accounts", "list")
	if code != cli.ExitInvalid || !strings.Contains(errOut, "SLUICE_ADMIN_KEY") {
		t.Fatalf("no admin key: %d %s", code, errOut)
	}
}

// TestAccountNamesUnique: a second account of a name, or a rename onto one,
// is refused (409, exit 1, the message names the name); get and update
// take a name as well as an id.
func TestAccountNamesUnique(t *testing.T) {
	adminServer(t)
	code, out, errOut := sluice(t, "", "accounts", "create", "--name", "ops bot", "--operations", "Wait")
	if code != 0 {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	var created struct {
		AgentID string `json:"agent_id"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = sluice(t, "", "accounts", "create", "--name", "ops bot")
	if code != 1 || !strings.Contains(errOut, "HTTP 409") || !strings.Contains(errOut, `an account named "ops bot" already exists`) {
		t.Fatalf("a second ops bot: %d %s", code, errOut)
	}
	if code, _, errOut = sluice(t, "", "accounts", "create", "--name", "other bot"); code != 0 {
		t.Fatalf("create other: %d %s", code, errOut)
	}
	code, _, errOut = sluice(t, "", "accounts", "update", "other bot", "--name", "ops bot")
	if code != 1 || !strings.Contains(errOut, "HTTP 409") {
		t.Fatalf("rename onto ops bot: %d %s", code, errOut)
	}

	code, out, _ = sluice(t, "", "accounts", "get", "ops bot")
	if code != 0 || !strings.Contains(out, created.AgentID) {
		t.Fatalf("get by name: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "accounts", "update", "ops bot", "--disable")
	if code != 0 || !strings.Contains(out, created.AgentID) || !strings.Contains(out, `"disabled": true`) {
		t.Fatalf("update by name: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "accounts", "get", created.AgentID)
	if code != 0 || !strings.Contains(out, `"ops bot"`) {
		t.Fatalf("get by id: %d %s", code, out)
	}
	code, _, errOut = sluice(t, "", "accounts", "get", "nobody")
	if code != 1 || !strings.Contains(errOut, "HTTP 404") || !strings.Contains(errOut, `no account is named "nobody" either`) {
		t.Fatalf("get nobody: %d %s", code, errOut)
	}
}
