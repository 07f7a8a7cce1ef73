package main

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	agentacp "github.com/sluicehq/sluice/internal/agent/acptest"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// `sluice acp --agent coder`, where coder is an ACP agent behind the server
// that asks permission (acp.permission ask): the editor gets
// session/request_permission with the agent's options, its choice goes
// back as the answer, and the turn ends end_turn with the agent's output.
func TestACPStdioAgentAsksPermission(t *testing.T) {
	admin := "acp-admin-" + strings.Repeat("b", 32)
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.AdminKey = config.NewSecret(admin)
	cfg.Agents.ACP.Commands = map[string]config.ACPCommand{"tester": {Command: os.Args[0], Args: []string{"-test.run=^$"},
		Env: []string{agentacp.EnvServe + "=1"}, Dir: t.TempDir()}}
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &acpFixture{dir: cfg.DataDir, app: app, srv: httptest.NewServer(app.Server.Handler())}
	t.Cleanup(f.close)
	f.post(t, admin, "/api/v1/admin/agents", map[string]any{"name": "coder", "protocol": "acp", "acp": map[string]any{"command": "tester"},
		"retry_config": map[string]any{"max_retries": 0}}, 201)
	key := f.post(t, admin, "/api/v1/admin/accounts", map[string]any{"name": "editor", "permissions": map[string]any{
		"agents": []string{"coder"}}}, 201)["api_key"].(string)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ed := startEditor(t, key, "--agent", "coder", "--url", f.srv.URL)
	ed.Choose("Reject")
	sid := ed.open(ctx)
	r, err := ed.prompt(ctx, sid, "permission")
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr:\n%s", r, err, ed.stderr)
	}
	asked := ed.Asked()
	if len(asked) != 1 || len(asked[0].Options) != 2 || asked[0].Options[0].OptionId != "yes" ||
		asked[0].Options[0].Kind != acp.PermissionOptionKindAllowOnce || asked[0].Options[1].Kind != acp.PermissionOptionKindRejectOnce ||
		asked[0].ToolCall.Title == nil || *asked[0].ToolCall.Title != "rm -rf build" {
		t.Fatalf("the permission request: %+v; text %q\nstderr:\n%s", asked, ed.Text(), ed.stderr)
	}
	// The agent's turn went on with the option chosen: its output is "no".
	if got := ed.Text(); !strings.HasSuffix(got, "no") {
		t.Fatalf("the agent's output: %q", got)
	}
}
