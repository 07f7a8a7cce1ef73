package main

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
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
	srv := agentServer(t, func(c *config.Config) {
		c.Agents.ACP.Commands = map[string]config.ACPCommand{"tester": {Command: os.Args[0], Args: []string{"-test.run=^$"},
			Env: []string{agentacp.EnvServe + "=1"}, Dir: t.TempDir()}}
	}, map[string]any{"name": "coder", "protocol": "acp", "acp": map[string]any{"command": "tester"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ed := startEditor(t, srv.key, "--agent", "coder", "--url", srv.url)
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

// askingA2A is an A2A agent that asks "which color?" of every new task and
// completes a task that asked with {"color": the answer}.
type askingA2A struct{}

func (askingA2A) Execute(_ context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if exec.StoredTask == nil {
			if yield(a2a.NewSubmittedTask(exec, exec.Message), nil) {
				yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateInputRequired,
					a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which color?"))), nil)
			}
			return
		}
		// sluice acp sends a prompt that answers as a text part.
		color := exec.Message.Parts[0].Text()
		if yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"color": color})), nil) {
			yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

func (askingA2A) Cancel(_ context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCanceled, nil), nil)
	}
}

// `sluice acp --agent painter`, an A2A agent that asks for input: the
// question is the agent's text and the turn ends; the next prompt answers
// it (the same remote task), and the agent's output is the answer.
func TestACPStdioA2AAgentAsksForInput(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(askingA2A{})))
	remote := httptest.NewServer(mux)
	t.Cleanup(remote.Close)
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{
		Name: "painter", Description: "asks for a color", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(remote.URL+"/rpc", a2a.TransportProtocolJSONRPC)},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"application/json"}, DefaultOutputModes: []string{"application/json"}}))

	srv := agentServer(t, nil, map[string]any{"name": "painter", "protocol": "a2a", "url": remote.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ed := startEditor(t, srv.key, "--agent", "painter", "--url", srv.url)
	sid := ed.open(ctx)
	if r, err := ed.prompt(ctx, sid, "paint the fence"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr:\n%s", r, err, ed.stderr)
	}
	if got := ed.Text(); !strings.Contains(got, "which color?") || !strings.Contains(got, "Reply with your answer") {
		t.Fatalf("the question: %q\nstderr:\n%s", got, ed.stderr)
	}
	if r, err := ed.prompt(ctx, sid, "green"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the answer: %+v %v\nstderr:\n%s", r, err, ed.stderr)
	}
	if got := ed.Text(); !strings.Contains(got, `"color": "green"`) {
		t.Fatalf("the agent's output: %q", got)
	}
	if len(ed.Asked()) != 0 {
		t.Fatalf("a question without options was a permission request: %+v", ed.Asked())
	}
}

// served is a server's URL and the key of an account granted its agent.
type served struct{ key, url string }

// agentServer is a sluice on a data directory of its own (its config
// changed by change) with the agent entry registered (no retries) and an
// account granted it.
func agentServer(t *testing.T, change func(*config.Config), entry map[string]any) served {
	t.Helper()
	admin := "acp-admin-" + strings.Repeat("b", 32)
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.AdminKey = config.NewSecret(admin)
	cfg.Egress.AllowPrivate = []string{"127.0.0.1"}
	if change != nil {
		change(&cfg)
	}
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &acpFixture{dir: cfg.DataDir, app: app, srv: httptest.NewServer(app.Server.Handler())}
	t.Cleanup(f.close)
	entry["retry_config"] = map[string]any{"max_retries": 0}
	f.post(t, admin, "/api/v1/admin/agents", entry, http.StatusCreated)
	key := f.post(t, admin, "/api/v1/admin/accounts", map[string]any{"name": "editor", "permissions": map[string]any{
		"agents": []string{entry["name"].(string)}}}, http.StatusCreated)["api_key"].(string)
	return served{key: key, url: f.srv.URL}
}
