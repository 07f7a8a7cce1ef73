package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/acpagent/acptest"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/a2s"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// testEditor is acptest's editor with `sluice acp --stdio` as its child
// process, on acp-go-sdk's client side.
type testEditor struct {
	*acptest.Editor
	t      *testing.T
	conn   *acp.ClientSideConnection
	stderr *childOutput
	close  func() // ends the child: its stdin closed, it exits
}

// startEditor spawns `sluice acp --stdio ARGS...` with key as SLUICE_API_KEY.
func startEditor(t *testing.T, key string, args ...string) *testEditor {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	ed := &testEditor{Editor: &acptest.Editor{}, t: t, stderr: &childOutput{}}
	cmd.Stderr = ed.stderr
	cmd.Env = append(os.Environ(), "SLUICE_TEST_MAIN_ARGS="+strings.Join(append([]string{"acp", "--stdio"}, args...), "\x1f"),
		"SLUICE_API_KEY="+key, "SLUICE_EGRESS_ALLOW_PRIVATE=127.0.0.1", "SLUICE_LOG_LEVEL=debug")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ed.conn = acp.NewClientSideConnection(ed.Editor, stdin, stdout)
	ed.conn.SetLogger(slog.New(slog.DiscardHandler))
	ed.close = sync.OnceFunc(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if strings.Contains(ed.stderr.String(), key) {
			t.Error("the key was logged")
		}
		if m := ed.Misuse(); len(m) > 0 {
			t.Errorf("sluice called the editor's %v", m)
		}
	})
	t.Cleanup(ed.close)
	return ed
}

// open initializes and opens a session, checking what sluice advertises.
func (e *testEditor) open(ctx context.Context) acp.SessionId {
	e.t.Helper()
	init, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}})
	if err != nil {
		e.t.Fatalf("initialize: %v\nstderr:\n%s", err, e.stderr)
	}
	caps := init.AgentCapabilities
	if init.ProtocolVersion != 1 || caps.LoadSession || caps.PromptCapabilities.Image || caps.PromptCapabilities.Audio ||
		!caps.PromptCapabilities.EmbeddedContext || caps.McpCapabilities.Http || caps.McpCapabilities.Sse || len(init.AuthMethods) != 0 {
		e.t.Fatalf("initialize advertises what sluice does not do: %+v", init)
	}
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/work/project", McpServers: []acp.McpServer{}})
	if err != nil {
		e.t.Fatalf("session/new: %v\nstderr:\n%s", err, e.stderr)
	}
	return s.SessionId
}

func (e *testEditor) prompt(ctx context.Context, sid acp.SessionId, text string) (acp.PromptResponse, error) {
	return e.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// echoAgent is an HTTP task agent answering {"text": "echo: " + input.text};
// the text "slow" is not answered (started says it came) until the call
// goes away or the test ends.
func echoAgent(t *testing.T) (url string, started chan struct{}) {
	started = make(chan struct{}, 8)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == agenthttp.HealthPath {
			_, _ = io.WriteString(w, `{"status":"healthy"}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		req, err := agenthttp.DecodeRequest(body, agenthttp.Limits{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in struct {
			Text      string `json:"text"`
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Prompt    []any  `json:"prompt"`
		}
		_ = json.Unmarshal(req.Input, &in)
		if in.Text == "slow" {
			started <- struct{}{}
			// The call is cancelled in sluice; a task behind the queue
			// bridge is not (bridge.Client.Invoke), so the test lets go.
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		out, _ := json.Marshal(map[string]any{"text": "echo: " + in.Text + " (cwd " + in.Cwd + ", blocks " + string(rune('0'+len(in.Prompt))) + ")"})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(agenthttp.Response{TaskID: req.TaskID, Status: agenthttp.StatusSuccess, Output: out})
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv.URL, started
}

// acpFixture is a sluice on a data directory with the agent echo, the
// capability finance/Approve, an account granted both (key) and one
// granted neither (other).
type acpFixture struct {
	dir, key, other string
	srv             *httptest.Server
	app             *gateway.App
	started         chan struct{}
}

func newACPFixture(t *testing.T) *acpFixture {
	t.Helper()
	admin := "acp-admin-" + strings.Repeat("a", 32)
	f := &acpFixture{dir: t.TempDir()}
	cfg := config.Defaults()
	cfg.DataDir = f.dir
	cfg.AdminKey = config.NewSecret(admin)
	cfg.Egress.AllowPrivate = []string{"127.0.0.1"}
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.app, f.srv = app, httptest.NewServer(app.Server.Handler())
	t.Cleanup(f.close)
	var agentURL string
	agentURL, f.started = echoAgent(t)
	f.post(t, admin, "/api/v1/admin/agents", map[string]any{"name": "echo", "url": agentURL}, http.StatusCreated)
	// A prompt task with an enum, then an agent_decision recording it.
	approve, err := os.ReadFile("../../testdata/a2s/approve.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := a2s.ParseTree(approve, a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		t.Fatal(err)
	}
	f.post(t, admin, "/api/v1/a2s/registry", map[string]any{"namespace": "finance", "document": "checksum: \"" + sum + "\"\n" + string(approve)}, http.StatusCreated)
	f.key = f.post(t, admin, "/api/v1/admin/accounts", map[string]any{"name": "editor", "permissions": map[string]any{
		"agents": []string{"echo"}, "capability_level": "basic", "operations": []string{"LoadData"}}}, http.StatusCreated)["api_key"].(string)
	f.other = f.post(t, admin, "/api/v1/admin/accounts", map[string]any{"name": "other", "permissions": map[string]any{}}, http.StatusCreated)["api_key"].(string)
	return f
}

func (f *acpFixture) post(t *testing.T, key, path string, body any, want int) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// close stops the server, leaving its data directory to an embedded sluice.
func (f *acpFixture) close() {
	if f.app != nil {
		f.srv.Close()
		_ = f.app.Close()
		f.app = nil
	}
}

// acpScenario is what both modes must do: initialize, a prompt answered
// as one agent message (the agent does not stream), cancel, a refused
// agent, and a permission round trip with a capability.
func acpScenario(t *testing.T, f *acpFixture, mode ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	ed := startEditor(t, f.key, append([]string{"--agent", "echo"}, mode...)...)
	sid := ed.open(ctx)
	r, err := ed.prompt(ctx, sid, "hello")
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr:\n%s", r, err, ed.stderr)
	}
	if got := ed.Text(); got != "echo: hello (cwd /work/project, blocks 1)" {
		t.Fatalf("agent message %q", got)
	}

	// session/cancel ends the turn with cancelled; the session goes on.
	done := make(chan acp.PromptResponse, 1)
	go func() {
		r, err := ed.prompt(ctx, sid, "slow")
		if err != nil {
			t.Errorf("the cancelled prompt: %v", err)
		}
		done <- r
	}()
	select {
	case <-f.started:
	case <-ctx.Done():
		t.Fatalf("the slow prompt never reached the agent\nstderr:\n%s", ed.stderr)
	}
	if err := ed.conn.Cancel(ctx, acp.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.StopReason != acp.StopReasonCancelled {
		t.Fatalf("after session/cancel: %+v", r)
	}
	if r, err := ed.prompt(ctx, sid, "again"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("a prompt after the cancel: %+v %v", r, err)
	}

	// An unknown session is refused, naming session/new.
	if _, err := ed.prompt(ctx, "sess_nope", "x"); err == nil || !strings.Contains(err.Error(), "session/new") {
		t.Fatalf("an unknown session: %v", err)
	}

	// An embedded sluice holds its data directory: one child at a time.
	ed.close()

	// An account without the agent's grant: a JSON-RPC error with the
	// permission_denied code's message.
	denied := startEditor(t, f.other, append([]string{"--agent", "echo"}, mode...)...)
	dsid := denied.open(ctx)
	_, err = denied.prompt(ctx, dsid, "hello")
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32003 || !strings.Contains(re.Message, `agent "echo" is not in this account's agents`) {
		t.Fatalf("a refused agent: %v", err)
	}

	denied.close()

	// A capability whose task waits for a decision: a permission request
	// with its options; the choice answers the run.
	capEd := startEditor(t, f.key, append([]string{"--agent", "cap:finance/Approve@^1"}, mode...)...)
	capEd.Choose("yes")
	csid := capEd.open(ctx)
	r, err = capEd.prompt(ctx, csid, `{"amount": 40}`)
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("capability prompt: %+v %v\nstderr:\n%s", r, err, capEd.stderr)
	}
	if len(capEd.Asked()) != 1 {
		t.Fatalf("permission requests: %+v", capEd.Asked())
	}
	asked := capEd.Asked()[0]
	if len(asked.Options) != 2 || asked.Options[0].Name != "yes" || asked.Options[0].Kind != acp.PermissionOptionKindAllowOnce ||
		asked.Options[1].Name != "no" || asked.Options[1].Kind != acp.PermissionOptionKindRejectOnce ||
		asked.ToolCall.Title == nil || *asked.ToolCall.Title != "Approve a refund of 40 EUR?" {
		t.Fatalf("the permission request: %+v", asked)
	}
	if !strings.Contains(capEd.Text(), `"verdict": "approved"`) {
		t.Fatalf("the run's outputs: %q", capEd.Text())
	}
	// Cancelling the permission request cancels the run and the turn.
	capEd.Choose("")
	if r, err := capEd.prompt(ctx, csid, `{"amount": 7}`); err != nil || r.StopReason != acp.StopReasonCancelled {
		t.Fatalf("a cancelled decision: %+v %v", r, err)
	}
	capEd.close()

	// An agent workflow: its step is a tool call, its last output the answer.
	flow := filepath.Join(t.TempDir(), "flow.json")
	if err := os.WriteFile(flow, []byte(`{"workflow_id": "wf-acp", "name": "echo flow", "version": "1.0.0", "start_step": "a",
		"steps": {"a": {"id": "a", "agent_name": "echo", "next_step": null, "input_mapping": {"text": "${workflow.input.text}"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	flowEd := startEditor(t, f.key, append([]string{"--agent", "flow:" + flow}, mode...)...)
	fsid := flowEd.open(ctx)
	if r, err := flowEd.prompt(ctx, fsid, "flowing"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("a workflow prompt: %+v %v\nstderr:\n%s", r, err, flowEd.stderr)
	}
	var steps []string
	for _, u := range flowEd.Updates() {
		switch {
		case u.ToolCall != nil:
			steps = append(steps, string(u.ToolCall.ToolCallId)+":"+string(u.ToolCall.Status))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			steps = append(steps, string(u.ToolCallUpdate.ToolCallId)+":"+string(*u.ToolCallUpdate.Status))
		}
	}
	if got := strings.Join(steps, " "); got != "step-a:in_progress step-a:completed" || flowEd.Text() != "echo: flowing (cwd , blocks 0)" {
		t.Fatalf("the workflow's updates: %s, text %q", got, flowEd.Text())
	}
}

func TestACPStdioRelay(t *testing.T) {
	f := newACPFixture(t)
	acpScenario(t, f, "--url", f.srv.URL)
}

func TestACPStdioEmbedded(t *testing.T) {
	f := newACPFixture(t)
	f.close()
	acpScenario(t, f, "--data", f.dir)
}

// A wrong key ends `sluice acp` before any ACP message, exit 2, the reason
// on stderr (both modes).
func TestACPStdioWrongKey(t *testing.T) {
	f := newACPFixture(t)
	for _, mode := range [][]string{{"--url", f.srv.URL}, {"--data", t.TempDir()}} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SLUICE_TEST_MAIN_ARGS="+strings.Join(append([]string{"acp", "--stdio", "--agent", "echo"}, mode...), "\x1f"),
			"SLUICE_API_KEY=sk-wrong-key")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "SLUICE_API_KEY") ||
			strings.Contains(stderr.String(), "sk-wrong-key") {
			t.Fatalf("%v: %v, stdout %q, stderr %q", mode, err, stdout.String(), stderr.String())
		}
	}
}

// TestACPJSClient drives `sluice acp --stdio` (relay) with the
// @agentclientprotocol/sdk 2.4.0 client: initialize, a new session, a
// prompt. SLUICE_TEST_ACP_JS names the folder where .ci/run installed the
// SDK (outside the repository); without it, or without node, the test skips.
func TestACPJSClient(t *testing.T) {
	dir := os.Getenv("SLUICE_TEST_ACP_JS")
	if dir == "" {
		t.Skip("SLUICE_TEST_ACP_JS is not set (.ci/run installs @agentclientprotocol/sdk 2.4.0 when npm answers)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		// The Node 22 that .ci/run installs for the MCP conformance suite.
		node = filepath.Join(os.Getenv("SLUICE_TEST_MCP_CONFORMANCE"), "node_modules", ".bin", "node")
		if _, serr := os.Stat(node); os.Getenv("SLUICE_TEST_MCP_CONFORMANCE") == "" || serr != nil {
			t.Skip("no node")
		}
	}
	script, err := os.ReadFile(filepath.Join("testdata", "acpjs", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script sits beside the SDK's node_modules so that its import
	// resolves there.
	path := filepath.Join(dir, "sluice-acp-client-test.mjs")
	if err := os.WriteFile(path, script, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newACPFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, path, os.Args[0])
	cmd.Env = append(os.Environ(), "SLUICE_TEST_MAIN_ARGS="+strings.Join([]string{"acp", "--stdio", "--agent", "echo", "--url", f.srv.URL}, "\x1f"),
		"SLUICE_API_KEY="+f.key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the @agentclientprotocol/sdk client: %v\n%s", err, stderr.String())
	}
	var out struct {
		Init struct {
			ProtocolVersion int `json:"protocolVersion"`
		} `json:"init"`
		SessionID  string `json:"sessionId"`
		Text       string `json:"text"`
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("the @agentclientprotocol/sdk client saw: %s", strings.TrimSpace(stdout.String()))
	if out.Init.ProtocolVersion != 1 || out.SessionID == "" || out.StopReason != "end_turn" ||
		out.Text != "echo: hello from js (cwd /work/project, blocks 1)" {
		t.Fatalf("%s", stdout.String())
	}
}
