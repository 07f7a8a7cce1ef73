package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/tools"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	conformanceClientIfAsked()
	os.Exit(m.Run())
}

var ctx = context.Background()

// testCommands allowlists this test binary as the MCP server "tester".
func testCommands(env ...string) map[string]config.MCPCommand {
	return map[string]config.MCPCommand{
		"tester": {Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: append([]string{mcptest.EnvServe + "=1"}, env...)},
		"broken": {Command: "/bin/false"},
	}
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, id := range []string{"alice", "bob"} {
		if _, err := st.CreateAccount(ctx, store.Account{ID: id, Name: id, Permissions: policy.Permissions{CapabilityLevel: policy.LevelBasic}}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func newRegistry(t *testing.T, st store.Store, o mcp.Options) *mcp.Registry {
	t.Helper()
	o.Store = st
	if o.Commands == nil {
		o.Commands = testCommands()
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 20 * time.Second // a child test binary under -race starts slowly
	}
	r := mcp.New(o)
	t.Cleanup(func() { r.Close() })
	return r
}

func principal(id string, servers ...string) *account.Principal {
	return &account.Principal{ID: id, Permissions: policy.Permissions{MCPServers: servers, Hosts: []string{"127.0.0.1"}}}
}

func wantKind(t *testing.T, err error, kind fault.Kind, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, kind)
	}
	if got := fault.From(err).Kind; got != kind {
		t.Fatalf("%s: %v is %s, want %s", what, err, got, kind)
	}
}

func toolNames(ts []tools.Tool) string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return strings.Join(names, " ")
}

func TestCommandServer(t *testing.T) {
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{})
	alice := principal("alice", "local")
	srv, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Name != "local" || srv.Command != "tester" || !strings.Contains(strings.Join(srv.Tools, " "), "mcp.local.echo") {
		t.Fatalf("registered: %+v", srv)
	}
	box := tools.New(r.Provider())
	list, err := box.List(ctx, alice, tools.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(list); got != "mcp.local.add mcp.local.ask mcp.local.echo mcp.local.exit mcp.local.fail mcp.local.getenv mcp.local.progress mcp.local.slow mcp.local.upper.text" {
		t.Fatalf("tools: %s", got)
	}
	for _, tl := range list {
		if tl.Name == "mcp.local.add" && (!tl.Idempotent || !strings.Contains(string(tl.Input), `"a"`) || tl.Description != "Add two numbers") {
			t.Fatalf("add: %+v", tl)
		}
	}
	// Structured output.
	res, err := box.Call(ctx, alice, "mcp.local.add", map[string]any{"a": 2, "b": 3}, nil)
	if err != nil || !res.Success || res.Data.(map[string]any)["sum"] != float64(5) || res.ToolName != "mcp.local.add" {
		t.Fatalf("add: %+v %v", res, err)
	}
	// One text; a tool name with a dot.
	res, err = box.Call(ctx, alice, "mcp.local.upper.text", map[string]any{"text": "hi"}, nil)
	if err != nil || !res.Success || res.Data != "HI" || res.Summary != "HI" {
		t.Fatalf("upper.text: %+v %v", res, err)
	}
	// A tool that ran and failed.
	res, err = box.Call(ctx, alice, "mcp.local.fail", nil, nil)
	if err != nil || res.Success || res.ErrorCode != "tool_error" || res.Error != "disk full" {
		t.Fatalf("fail: %+v %v", res, err)
	}
	// Arguments the tool's schema refuses: the server's words, as a failed call.
	res, err = box.Call(ctx, alice, "mcp.local.add", map[string]any{"a": "two"}, nil)
	if err != nil || res.Success || res.ErrorCode != "tool_error" || res.Error == "" {
		t.Fatalf("bad arguments: %+v %v", res, err)
	}
	// Unknown tool, unknown server, no tool part.
	for _, name := range []string{"mcp.local.nope", "mcp.local", "mcp.lo!cal.echo"} {
		_, err = box.Call(ctx, alice, name, nil, nil)
		wantKind(t, err, fault.NotFound, name)
	}
	_, err = box.Call(ctx, principal("alice", "local", "other"), "mcp.other.echo", nil, nil)
	wantKind(t, err, fault.NotFound, "a granted server never registered")
	_, err = box.Call(ctx, alice, "mcp.other.echo", nil, nil)
	wantKind(t, err, fault.PermissionDenied, "a server not granted")
	servers, err := r.List(ctx, alice)
	if err != nil || len(servers) != 1 || servers[0].Name != "local" || len(servers[0].Tools) != 9 {
		t.Fatalf("servers: %+v %v", servers, err)
	}
}

func TestRegisterPolicy(t *testing.T) {
	st := openStore(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	strict := newRegistry(t, st, mcp.Options{}) // no private address allowed
	open := newRegistry(t, st, mcp.Options{Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}, ConnectTimeout: 3 * time.Second})
	cases := []struct {
		name, server, command, url string
		p                          *account.Principal
		r                          *mcp.Registry
		kind                       fault.Kind
		says                       string
	}{
		{"not granted", "local", "tester", "", principal("alice", "other"), strict, fault.PermissionDenied, "mcp_servers"},
		{"command not allowlisted", "local", "bash", "", principal("alice", "*"), strict, fault.PermissionDenied, "allowlist"},
		{"both", "local", "tester", "http://127.0.0.1:1/mcp", principal("alice", "*"), strict, fault.Invalid, "not both"},
		{"neither", "local", "", "", principal("alice", "*"), strict, fault.Invalid, "command or a url"},
		{"bad name", "a.b", "tester", "", principal("alice", "*"), strict, fault.Invalid, "name"},
		{"not http", "web", "", "ftp://127.0.0.1/mcp", principal("alice", "*"), strict, fault.Invalid, "http or https"},
		{"user info", "web", "", "https://u:p@mcp.example.com/mcp", principal("alice", "*"), strict, fault.Invalid, "user info"},
		{"host not granted", "web", "", "https://mcp.example.com/mcp", principal("alice", "*"), strict, fault.PermissionDenied, "hosts"},
		{"loopback refused", "web", "", closedURL + "/mcp", principal("alice", "*"), strict, fault.PermissionDenied, "allow_private"},
		{"nothing listening", "web", "", closedURL + "/mcp", principal("alice", "*"), open, fault.Upstream, "could not be reached"},
		{"process exits", "broken", "broken", "", principal("alice", "*"), strict, fault.Upstream, "could not be started"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.r.Register(ctx, tc.p, mcp.Registration{Name: tc.server, Command: tc.command, URL: tc.url})
			wantKind(t, err, tc.kind, tc.name)
			if !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %q does not say %q", err, tc.says)
			}
		})
	}
	if regs, _ := st.ListMCPServers(ctx, "alice"); len(regs) != 0 {
		t.Fatalf("a refused registration was stored: %+v", regs)
	}
}

func TestURLServer(t *testing.T) {
	srv := mcptest.NewServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}})
	defer r.Close() // before the server: the connection holds a stream open
	bob := principal("bob", "web")
	got, err := r.Register(ctx, bob, mcp.Registration{Name: "web", URL: hs.URL})
	if err != nil || got.URL != hs.URL || len(got.Tools) != 9 {
		t.Fatalf("register: %+v %v", got, err)
	}
	res, err := r.Provider().Call(ctx, bob, "mcp.web.echo", map[string]any{"text": "über"}, nil)
	if err != nil || !res.Success || res.Data.(map[string]any)["text"] != "über" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	// A tool's progress notifications, sent while it runs, become the call's
	// progress events (each carrying its figure), and none are asked for
	// without a listener.
	var mu sync.Mutex
	seen := map[float64]bool{}
	res, err = r.Provider().Call(ctx, bob, "mcp.web.progress", map[string]any{"steps": 3, "ms": 100}, func(e tools.Event) {
		d, _ := e.Data.(map[string]any)
		p, _ := d["progress"].(float64)
		if e.Kind != "progress" || d["total"] != float64(3) || d["message"] != fmt.Sprintf("step %d", int(p)) || p < 1 || p > 3 {
			t.Errorf("event %+v", e)
		}
		mu.Lock()
		if seen[p] {
			t.Errorf("progress %v twice", p)
		}
		seen[p] = true
		mu.Unlock()
	})
	if err != nil || !res.Success {
		t.Fatalf("progress: %+v %v", res, err)
	}
	mu.Lock()
	if !seen[1] || !seen[2] {
		t.Errorf("progress events %v: want at least the two sent well before the answer", seen)
	}
	mu.Unlock()
	if res, err := r.Provider().Call(ctx, bob, "mcp.web.progress", map[string]any{"steps": 2}, nil); err != nil || !res.Success {
		t.Fatalf("progress without a listener: %+v %v", res, err)
	}
	// The account loses the host: its tools are denied and no longer listed.
	lost := &account.Principal{ID: "bob", Permissions: policy.Permissions{MCPServers: []string{"web"}}}
	_, err = r.Provider().Call(ctx, lost, "mcp.web.echo", map[string]any{"text": "x"}, nil)
	wantKind(t, err, fault.PermissionDenied, "call after the host grant is gone")
	if list, _ := r.Provider().List(ctx, lost); len(list) != 0 {
		t.Fatalf("listed without the host grant: %s", toolNames(list))
	}
}

// Registrations live in the store: a new registry (a restarted server) has
// them and reconnects.
func TestRegistrationsPersist(t *testing.T) {
	st := openStore(t)
	alice := principal("alice", "*")
	r1 := mcp.New(mcp.Options{Store: st, Commands: testCommands(), ConnectTimeout: 20 * time.Second})
	if _, err := r1.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	r1.Close()
	r2 := newRegistry(t, st, mcp.Options{})
	if r2.Connected() != 0 {
		t.Fatal("a new registry connects lazily")
	}
	res, err := r2.Provider().Call(ctx, alice, "mcp.local.add", map[string]any{"a": 1, "b": 1}, nil)
	if err != nil || !res.Success {
		t.Fatalf("after restart: %+v %v", res, err)
	}
	// Bob sees none of alice's servers.
	if list, _ := r2.Provider().List(ctx, principal("bob", "*")); len(list) != 0 {
		t.Fatalf("bob sees %s", toolNames(list))
	}
	_, err = r2.Provider().Call(ctx, principal("bob", "*"), "mcp.local.add", nil, nil)
	wantKind(t, err, fault.NotFound, "another account's server")
	// Without the grant, alice is denied and lists nothing of it.
	noGrant := principal("alice")
	_, err = r2.Provider().Call(ctx, noGrant, "mcp.local.add", nil, nil)
	wantKind(t, err, fault.PermissionDenied, "call without the grant")
	if list, _ := r2.Provider().List(ctx, noGrant); len(list) != 0 {
		t.Fatalf("listed without the grant: %s", toolNames(list))
	}
	if err := r2.Unregister(ctx, alice, "local"); err != nil {
		t.Fatal(err)
	}
	wantKind(t, r2.Unregister(ctx, alice, "local"), fault.NotFound, "unregister twice")
	if r2.Connected() != 0 {
		t.Fatal("unregistering leaves the connection open")
	}
	_, err = r2.Provider().Call(ctx, alice, "mcp.local.add", nil, nil)
	wantKind(t, err, fault.NotFound, "call after unregister")
}

func TestTimeoutsDeathAndIdle(t *testing.T) {
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{CallTimeout: 300 * time.Millisecond, IdleTimeout: time.Second})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	p := r.Provider()
	_, err := p.Call(ctx, alice, "mcp.local.slow", map[string]any{"ms": 10000}, nil)
	wantKind(t, err, fault.Timeout, "slow call")
	// The caller going away cancels the call.
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = p.Call(cctx, alice, "mcp.local.slow", map[string]any{"ms": 10000}, nil)
	cancel()
	if err == nil || cctx.Err() == nil {
		t.Fatalf("cancelled call: %v", err)
	}
	// The server process dies during a call: that call fails, the next one
	// starts the server again. A registry of its own, with a call timeout
	// long enough that a loaded machine noticing the exit late still sees a
	// death and not a timeout.
	r = newRegistry(t, st, mcp.Options{CallTimeout: 30 * time.Second, IdleTimeout: time.Second})
	p = r.Provider()
	res, err := p.Call(ctx, alice, "mcp.local.exit", nil, nil)
	t.Logf("exit: %+v", res)
	wantKind(t, err, fault.Upstream, "server died")
	res, err = p.Call(ctx, alice, "mcp.local.add", map[string]any{"a": 1, "b": 2}, nil)
	if err != nil || !res.Success {
		t.Fatalf("after the server died: %+v %v", res, err)
	}
	// Idle connections are closed.
	deadline := time.Now().Add(10 * time.Second)
	for r.Connected() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("an idle connection stayed open")
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err = p.Call(ctx, alice, "mcp.local.add", map[string]any{"a": 1, "b": 2}, nil)
	if err != nil || !res.Success {
		t.Fatalf("after idle close: %+v %v", res, err)
	}
}

// A command server gets only the environment its entry names.
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("SLUICE_TEST_PASSED", "yes")
	t.Setenv("SLUICE_TEST_SECRET", "s3cr3t")
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{Commands: testCommands("SLUICE_TEST_PASSED", "FIXED=1")})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"SLUICE_TEST_PASSED": "yes", "FIXED": "1", "SLUICE_TEST_SECRET": "", "PATH": ""} {
		res, err := r.Provider().Call(ctx, alice, "mcp.local.getenv", map[string]any{"name": name}, nil)
		if err != nil || res.Data != want {
			t.Errorf("%s: got %+v %v, want %q", name, res, err, want)
		}
	}
}

func TestResultBound(t *testing.T) {
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{MaxResultBytes: 1024})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	res, err := r.Provider().Call(ctx, alice, "mcp.local.echo", map[string]any{"text": strings.Repeat("é", 2000)}, nil)
	if err != nil || !res.Success || !res.Truncated || len(res.Data.(string)) > 1024+len("…") {
		t.Fatalf("big answer: truncated=%v %v", res.Truncated, err)
	}
}
