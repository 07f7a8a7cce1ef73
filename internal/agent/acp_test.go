package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/agent/acptest"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func TestMain(m *testing.M) {
	acptest.ServeIfAsked() // the test binary as an ACP agent (acptest)
	os.Exit(m.Run())
}

// acpEnv is an env whose allowlist runs the test binary as an ACP agent
// ("tester", in dir, SLUICE_ACP_PASSED passed on and FIXED=1 set).
func acpEnv(t *testing.T, dir string, change func(*config.ACP)) *env {
	t.Helper()
	c := config.ACP{Commands: map[string]config.ACPCommand{
		"tester": {Command: os.Args[0], Args: []string{"-test.run=^$"},
			Env: []string{acptest.EnvServe + "=1", "SLUICE_ACP_PASSED", "FIXED=1"}, Dir: dir},
	}, MaxProcesses: 4, IdleTimeout: time.Minute, StartTimeout: 20 * time.Second, MaxStderrBytes: 4096}
	if change != nil {
		change(&c)
	}
	e := newEnv(t, func(ro *agent.RegistryOptions, _ *agent.InvokerOptions) { ro.ACP = c })
	t.Cleanup(e.inv.Close)
	return e
}

func acpEntry(name string, change func(*agenthttp.ACPSpec)) agenthttp.Entry {
	e := agenthttp.NewEntry(name, "")
	e.Protocol = agenthttp.ProtocolACP
	e.Retry.MaxRetries = 0
	e.Timeout = 30 * time.Second
	e.ACP = &agenthttp.ACPSpec{Command: "tester", Permission: agenthttp.ACPReject}
	if change != nil {
		change(e.ACP)
	}
	return e
}

func (e *env) registerACP(t *testing.T, name string, change func(*agenthttp.ACPSpec)) {
	t.Helper()
	if _, _, err := e.reg.Register(ctx, acpEntry(name, change)); err != nil {
		t.Fatal(err)
	}
}

// say prompts agent name with text and returns the output's text.
func (e *env) say(t *testing.T, c context.Context, name, text string) (string, error) {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"text": text})
	out, err := e.inv.Invoke(c, name, "", in, "")
	if err != nil {
		return "", err
	}
	var o struct {
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(out, &o); err != nil || o.StopReason != "end_turn" {
		t.Fatalf("output %s: %v", out, err)
	}
	return o.Text, nil
}

func TestACPPromptChunksAndUpdates(t *testing.T) {
	dir := t.TempDir()
	e := acpEnv(t, dir, nil)
	e.registerACP(t, "coder", nil)
	var mu sync.Mutex
	var ups []agent.Update
	c := agent.WithUpdates(ctx, func(u agent.Update) { mu.Lock(); ups = append(ups, u); mu.Unlock() })
	got, err := e.say(t, c, "coder", "hello")
	if err != nil || got != "Hello" {
		t.Fatalf("hello: %q %v", got, err)
	}
	mu.Lock()
	b, _ := json.Marshal(ups)
	mu.Unlock()
	want := `[{"delta_kind":"reasoning","delta":"thinking"},` +
		`{"delta_kind":"tool","delta":{"kind":"read","status":"pending","title":"look","toolCallId":"t1"}},` +
		`{"delta_kind":"tool","delta":{"status":"completed","toolCallId":"t1"}},` +
		`{"delta_kind":"custom","delta":{"entries":[{"content":"greet","priority":"high","status":"completed"}],"type":"plan"}},` +
		`{"delta_kind":"text","delta":"Hel"},{"delta_kind":"text","delta":"lo"}]`
	if string(b) != want {
		t.Fatalf("updates:\n%s\nwant\n%s", b, want)
	}
	// Input that is not {"text"} is sent as its JSON.
	out, err := e.inv.Invoke(ctx, "coder", "", json.RawMessage(`{"a":1}`), "")
	if err != nil || !strings.Contains(string(out), `echo: {\"a\":1}`) {
		t.Fatalf("object input: %s %v", out, err)
	}
	// The working directory is the command's dir; the process is kept.
	if got, _ := e.say(t, ctx, "coder", "cwd"); got != dir {
		t.Fatalf("cwd %q, want %q", got, dir)
	}
	p1, _ := e.say(t, ctx, "coder", "pid")
	p2, _ := e.say(t, ctx, "coder", "pid")
	if p1 == "" || p1 != p2 {
		t.Fatalf("pids %q %q: the process is not kept between calls", p1, p2)
	}
	h, err := e.inv.CheckHealth(ctx, "coder")
	if err != nil || !h.Healthy {
		t.Fatalf("health %+v %v", h, err)
	}
}

func TestACPEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("SLUICE_ACP_PASSED", "yes")
	t.Setenv("SLUICE_ACP_SECRET", "s3cr3t-server-value")
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "coder", nil)
	for name, want := range map[string]string{"SLUICE_ACP_PASSED": "yes", "FIXED": "1", "SLUICE_ACP_SECRET": "(unset)", "PATH": "(unset)", "HOME": "(unset)"} {
		if got, err := e.say(t, ctx, "coder", "env "+name); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
	// A value of the command's env is its secret: scrubbed from what the
	// agent says.
	t.Setenv("SLUICE_ACP_PASSED", "a-longer-secret-token")
	e2 := acpEnv(t, t.TempDir(), nil)
	e2.registerACP(t, "coder", nil)
	if got, err := e2.say(t, ctx, "coder", "env SLUICE_ACP_PASSED"); err != nil || strings.Contains(got, "a-longer-secret-token") {
		t.Fatalf("the command's secret came back: %q %v", got, err)
	}
}

func TestACPRefusedCommand(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	_, _, err := e.reg.Register(ctx, acpEntry("coder", func(s *agenthttp.ACPSpec) { s.Command = "bash" }))
	fe := wantKind(t, err, fault.PermissionDenied, "a command not on the allowlist")
	if !strings.Contains(fe.Message, `"bash"`) || !strings.Contains(fe.Message, "agents.acp.commands") {
		t.Fatalf("message %q does not name the command and the allowlist", fe.Message)
	}
	_, _, err = e.reg.Register(ctx, acpEntry("coder", func(s *agenthttp.ACPSpec) { s.Args = []string{"--yolo"} }))
	wantKind(t, err, fault.PermissionDenied, "arguments the command does not take")
	_, _, err = e.reg.Register(ctx, acpEntry("coder", func(s *agenthttp.ACPSpec) { s.Cwd = "/etc" }))
	wantKind(t, err, fault.PermissionDenied, "a cwd outside the command's dir")

	// An entry whose command left the allowlist after it was registered.
	e.registerACP(t, "coder", nil)
	blank := newEnv(t, func(ro *agent.RegistryOptions, _ *agent.InvokerOptions) { ro.Store, ro.Vault = e.store, e.vault })
	_, err = blank.inv.Invoke(ctx, "coder", "", nil, "")
	wantKind(t, err, fault.PermissionDenied, "a call of a command no longer allowlisted")
}

// A program that cannot be started fails at once, not retried.
func TestACPProgramMissing(t *testing.T) {
	e := acpEnv(t, t.TempDir(), func(c *config.ACP) { c.Commands["gone"] = config.ACPCommand{Command: "/nonexistent/acp-agent"} })
	en := acpEntry("gone", func(s *agenthttp.ACPSpec) { s.Command, s.Cwd = "gone", t.TempDir() })
	en.Retry.MaxRetries = 3
	if _, _, err := e.reg.Register(ctx, en); err != nil {
		t.Fatal(err)
	}
	_, err := e.inv.Invoke(ctx, "gone", "", nil, "")
	fe := wantKind(t, err, fault.Unavailable, "a missing program")
	if !strings.Contains(fe.Message, "could not be started") || fe.Details["attempts"] != 1 {
		t.Fatalf("%q after %v attempts", fe.Message, fe.Details["attempts"])
	}
	h, _ := e.inv.CheckHealth(ctx, "gone")
	if h.Healthy || !strings.Contains(h.Error, "could not be started") {
		t.Fatalf("health %+v", h)
	}
}

func TestACPProcessCrashRestarts(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "coder", nil)
	p1, err := e.say(t, ctx, "coder", "pid")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.say(t, ctx, "coder", "crash")
	fe := wantKind(t, err, fault.Upstream, "a crash")
	if !strings.Contains(fe.Message, "exit status 3") {
		t.Fatalf("message %q does not say how the process ended", fe.Message)
	}
	p2, err := e.say(t, ctx, "coder", "pid")
	if err != nil || p2 == p1 {
		t.Fatalf("after a crash: pid %q (was %q) %v", p2, p1, err)
	}
}

func TestACPFileSystem(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("inside\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	e := acpEnv(t, dir, nil)
	e.registerACP(t, "noread", nil)
	got, err := e.say(t, ctx, "noread", "read "+filepath.Join(dir, "in.txt"))
	if err != nil || !strings.Contains(got, "fs/read_text_file is refused") || !strings.Contains(got, "acp.fs.read") {
		t.Fatalf("read not granted: %q %v", got, err)
	}
	if got, _ := e.say(t, ctx, "noread", "terminal"); !strings.Contains(got, "terminal/create is refused") {
		t.Fatalf("terminal: %q", got)
	}
	e.registerACP(t, "rw", func(s *agenthttp.ACPSpec) { s.FSRead, s.FSWrite = true, true })
	if got, _ := e.say(t, ctx, "rw", "read "+filepath.Join(dir, "in.txt")); got != "inside\n" {
		t.Fatalf("granted read: %q", got)
	}
	for _, p := range []string{dir + "/../" + filepath.Base(outside) + "/secret.txt", filepath.Join(outside, "secret.txt"),
		filepath.Join(dir, "link", "secret.txt"), "in.txt"} {
		got, err := e.say(t, ctx, "rw", "read "+p)
		if err != nil || strings.Contains(got, "outside") && !strings.Contains(got, "error") || !strings.HasPrefix(got, "error: ") {
			t.Errorf("read %s: %q %v, want a refusal", p, got, err)
		}
	}
	if got, _ := e.say(t, ctx, "rw", "write "+filepath.Join(dir, "out.txt")+" new"); got != "ok" {
		t.Fatalf("granted write: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "new" {
		t.Fatalf("written %q", b)
	}
	if got, _ := e.say(t, ctx, "rw", "write "+filepath.Join(dir, "link", "secret.txt")+" pwned"); !strings.HasPrefix(got, "error: ") {
		t.Fatalf("write through a symlink out: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "outside" {
		t.Fatalf("the file outside was changed: %q", b)
	}
}

func TestACPPermissionByPolicy(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "strict", nil)
	e.registerACP(t, "lenient", func(s *agenthttp.ACPSpec) { s.Permission = agenthttp.ACPAllowOnce })
	var ups []agent.Update
	c := agent.WithUpdates(ctx, func(u agent.Update) { ups = append(ups, u) })
	if got, err := e.say(t, c, "strict", "permission"); err != nil || got != "no" {
		t.Fatalf("reject policy: %q %v", got, err)
	}
	if len(ups) == 0 || ups[0].Kind != "custom" || ups[0].Delta.(map[string]any)["answer"] != "reject_once" {
		t.Fatalf("the permission asked is not reported: %+v", ups)
	}
	if got, err := e.say(t, ctx, "lenient", "permission"); err != nil || got != "yes" {
		t.Fatalf("allow_once policy: %q %v", got, err)
	}
}

func TestACPCancel(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "coder", nil)
	p1, _ := e.say(t, ctx, "coder", "pid")
	c, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := e.inv.Invoke(c, "coder", "", json.RawMessage(`{"text":"wait"}`), "")
		errc <- err
	}()
	// The turn is under way once the agent's process is busy: a second
	// call meanwhile gets a process of its own.
	for e.inv.ACPBusy("coder") == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	fe := wantKind(t, <-errc, fault.Unavailable, "a cancelled call")
	if !strings.Contains(fe.Message, "session/cancel") {
		t.Fatalf("message %q", fe.Message)
	}
	// The agent ended its turn (stopReason cancelled): its process is kept.
	if p2, err := e.say(t, ctx, "coder", "pid"); err != nil || p2 != p1 {
		t.Fatalf("after cancel: pid %q (was %q) %v", p2, p1, err)
	}
}

func TestACPRefusalAndBound(t *testing.T) {
	e := acpEnv(t, t.TempDir(), func(c *config.ACP) { c.MaxProcesses = 1 })
	e.registerACP(t, "coder", nil)
	_, err := e.say(t, ctx, "coder", "refuse")
	wantKind(t, err, fault.Upstream, "a refusal")
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.inv.Invoke(c, "coder", "", json.RawMessage(`{"text":"wait"}`), "")
	for e.inv.ACPBusy("coder") == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, err = e.say(t, ctx, "coder", "pid")
	fe := wantKind(t, err, fault.Unavailable, "a call past agents.acp.max_processes")
	if !strings.Contains(fe.Message, "agents.acp.max_processes") {
		t.Fatalf("message %q", fe.Message)
	}
}

// An idle process is stopped after agents.acp.idle_timeout; the next call
// starts another. A turn past the entry's timeout is cancelled.
func TestACPIdleAndTimeout(t *testing.T) {
	e := acpEnv(t, t.TempDir(), func(c *config.ACP) { c.IdleTimeout = 20 * time.Millisecond })
	e.registerACP(t, "coder", nil)
	p1, err := e.say(t, ctx, "coder", "pid")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); e.inv.ACPLive("coder") > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle process was not stopped")
		}
	}
	if p2, err := e.say(t, ctx, "coder", "pid"); err != nil || p2 == p1 {
		t.Fatalf("after idle: pid %q (was %q) %v", p2, p1, err)
	}

	en := acpEntry("slow", nil)
	en.Timeout = 50 * time.Millisecond
	if _, _, err := e.reg.Register(ctx, en); err != nil {
		t.Fatal(err)
	}
	_, err = e.inv.Invoke(ctx, "slow", "", json.RawMessage(`{"text":"wait"}`), "")
	fe := wantKind(t, err, fault.Timeout, "a turn past the timeout")
	if !strings.Contains(fe.Message, "session/cancel") {
		t.Fatalf("message %q", fe.Message)
	}

	// Close stops every process and starts none again.
	if _, err := e.say(t, ctx, "coder", "pid"); err != nil {
		t.Fatal(err)
	}
	e.inv.Close()
	if n := e.inv.ACPLive("coder"); n != 0 {
		t.Fatalf("%d processes live after Close", n)
	}
	_, err = e.say(t, ctx, "coder", "pid")
	if fe := wantKind(t, err, fault.Unavailable, "a call after Close"); !strings.Contains(fe.Message, "shutting down") {
		t.Fatalf("message %q", fe.Message)
	}
}

// A process's stderr is logged at debug, line by line, up to
// agents.acp.max_stderr_bytes.
func TestACPStderrBounded(t *testing.T) {
	e := acpEnv(t, t.TempDir(), func(c *config.ACP) { c.MaxStderrBytes = 600 })
	e.registerACP(t, "coder", nil)
	if got, err := e.say(t, ctx, "coder", "stderr 1000"); err != nil || got != "done" {
		t.Fatalf("%q %v", got, err)
	}
	// The lines are written before the answer, but read by another
	// goroutine: wait until the budget is spent.
	for deadline := time.Now().Add(30 * time.Second); strings.Count(e.logs.String(), "line=noise") < 100; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr lines logged: %d", strings.Count(e.logs.String(), "line=noise"))
		}
	}
	if n := strings.Count(e.logs.String(), "line=noise"); n != 100 {
		t.Fatalf("%d stderr lines logged, want 100 (600 bytes of \"noise\\n\")", n)
	}
}
