package gateway_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
)

// withMCPCommands allowlists this test binary as the MCP command "tester".
func withMCPCommands(c *config.Config) {
	c.MCP.Commands = map[string]config.MCPCommand{
		"tester": {Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{mcptest.EnvServe + "=1"}},
	}
	c.MCP.ConnectTimeout = 30 * time.Second // a child test binary under -race starts slowly
}

func mcpHandshake(r *rawSession, key string) map[string]any {
	r.send("handshake/req", map[string]any{"agent_id": "tester", "agent_caps": []string{"tools", "mcp"}, "auth_token": key})
	return r.recv()
}

// An MCP server run in process (go-sdk, streamable HTTP) and one run as an
// allowlisted command: registered, listed and called through a session, under
// the account's mcp_servers grant.
func TestSessionMCPServers(t *testing.T) {
	srv := mcptest.NewServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the gateway's cleanup: its MCP connection holds a stream open
	s := newServer(t, withMCPCommands)
	_, key := s.account(map[string]any{"operations": []string{"Wait"}, "hosts": []string{"127.0.0.1"},
		"mcp_servers": []string{"web", "local"}}, nil)
	r := openRaw(t, s)
	if hs := mcpHandshake(r, key); hs["ok"] != true || !strings.Contains(fmtAny(hs["accepted_caps"]), "capability:mcp enabled:true") {
		t.Fatalf("handshake: %v", hs)
	}

	// Register the in-process server by URL.
	id := r.send("mcp/server/register/req", map[string]any{"name": "web", "url": hs.URL})
	m := r.recv()
	server, _ := m["server"].(map[string]any)
	if m["type"] != "mcp/server/register/resp" || m["req_id"] != id || m["ok"] != true || server["url"] != hs.URL ||
		!strings.Contains(fmtAny(server["tools"]), "mcp.web.add") {
		t.Fatalf("register web: %v", m)
	}
	// And the command server.
	r.send("mcp/server/register/req", map[string]any{"name": "local", "command": "tester"})
	if m := r.recv(); m["ok"] != true {
		t.Fatalf("register local: %v", m)
	}
	// Refusals answer ok:false with the reason.
	for _, tc := range []struct {
		fields map[string]any
		says   string
	}{
		{map[string]any{"name": "secret", "url": hs.URL}, "mcp_servers"},
		{map[string]any{"name": "local", "command": "bash"}, "allowlist"},
		{map[string]any{"name": "web", "url": "https://mcp.example.com/mcp"}, "hosts"},
		// Credentials are named from the vault, never given as values.
		{map[string]any{"name": "web", "url": hs.URL, "headers": map[string]any{"Authorization": "Bearer s3cret"}}, "credentialRef"},
		{map[string]any{"name": "web", "url": hs.URL, "headers": map[string]any{"Authorization": map[string]any{"credentialRef": map[string]any{"id": "tok"}}}}, "not permitted"},
	} {
		r.send("mcp/server/register/req", tc.fields)
		if m := r.recv(); m["type"] != "mcp/server/register/resp" || m["ok"] != false || !strings.Contains(fmtAny(m["reason"]), tc.says) {
			t.Fatalf("register %v: %v", tc.fields, m)
		}
	}
	// A registration without command or url is a schema violation.
	r.send("mcp/server/register/req", map[string]any{"name": "x"})
	if m := r.recv(); m["type"] != "error" || m["code"] != "schema_violation" {
		t.Fatalf("register without command or url: %v", m)
	}

	r.send("mcp/server/list/req", nil)
	m = r.recv()
	if m["type"] != "mcp/server/list/resp" || !strings.Contains(fmtAny(m["servers"]), "name:local") || !strings.Contains(fmtAny(m["servers"]), "name:web") {
		t.Fatalf("list: %v", m)
	}
	// The tools, among the account's others; a query finds them.
	r.send("tool/list/req", map[string]any{"query": "add numbers"})
	m = r.recv()
	names := fmtAny(m["tools"])
	if !strings.Contains(names, "name:mcp.web.add") || !strings.Contains(names, "name:mcp.local.add") || strings.Contains(names, "mcp.web.echo") {
		t.Fatalf("tool list with a query: %v", names)
	}
	r.send("tool/list/req", nil)
	if names := fmtAny(r.recv()["tools"]); !strings.Contains(names, "name:op.Wait") || !strings.Contains(names, "name:mcp.local.upper.text") {
		t.Fatalf("tool list: %v", names)
	}
	// Calls.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"mcp.web.add", map[string]any{"a": 40, "b": 2}, "sum:42"},
		{"mcp.local.add", map[string]any{"a": 1, "b": 2}, "sum:3"},
		{"mcp.local.upper.text", map[string]any{"text": "shout"}, "SHOUT"},
	} {
		id := r.send("tool/call/req", map[string]any{"tool_name": tc.tool, "arguments": tc.args})
		m := r.recv()
		data, _ := m["data"].(map[string]any)
		if m["type"] != "tool/call/resp" || m["req_id"] != id || data["success"] != true || !strings.Contains(fmtAny(data["data"]), tc.want) {
			t.Fatalf("%s: %v", tc.tool, m)
		}
	}
	// An MCP tool's progress notifications reach the session as tool/event
	// progress messages of the call, before its answer, when the call streams.
	id = r.send("tool/call/req", map[string]any{"tool_name": "mcp.web.progress", "arguments": map[string]any{"steps": 2, "ms": 100}, "streaming": true})
	progress := 0
	for {
		m := r.recv()
		if m["type"] == "tool/call/resp" {
			if data, _ := m["data"].(map[string]any); m["req_id"] != id || data["success"] != true {
				t.Fatalf("progress call: %v", m)
			}
			break
		}
		if m["type"] != "tool/event" || m["req_id"] != id || m["kind"] != "progress" || !strings.Contains(fmtAny(m["data"]), "total:2") {
			t.Fatalf("progress event: %v", m)
		}
		progress++
	}
	if progress < 1 {
		t.Fatal("no progress event reached the session")
	}
	// A tool that fails answers success:false.
	r.send("tool/call/req", map[string]any{"tool_name": "mcp.web.fail"})
	if data, _ := r.recv()["data"].(map[string]any); data["success"] != false || data["error_code"] != "tool_error" || data["error"] != "disk full" {
		t.Fatalf("fail: %v", data)
	}
	// Denied and unknown tools.
	for tool, code := range map[string]string{"mcp.secret.add": "tool_denied", "mcp.web.nope": "unknown_tool"} {
		r.send("tool/call/req", map[string]any{"tool_name": tool})
		if m := r.recv(); m["type"] != "error" || m["code"] != code {
			t.Fatalf("%s: %v", tool, m)
		}
	}
	// Another account sees none of it.
	_, other := s.account(map[string]any{"mcp_servers": []string{"*"}, "hosts": []string{"127.0.0.1"}}, nil)
	r2 := openRaw(t, s)
	mcpHandshake(r2, other)
	r2.send("tool/call/req", map[string]any{"tool_name": "mcp.web.add", "arguments": map[string]any{"a": 1, "b": 1}})
	if m := r2.recv(); m["code"] != "unknown_tool" {
		t.Fatalf("another account's server: %v", m)
	}
	// Unregister.
	r.send("mcp/server/unregister/req", map[string]any{"name": "web"})
	if m := r.recv(); m["type"] != "mcp/server/unregister/resp" || m["ok"] != true {
		t.Fatalf("unregister: %v", m)
	}
	r.send("mcp/server/unregister/req", map[string]any{"name": "web"})
	if m := r.recv(); m["ok"] != false || !strings.Contains(fmtAny(m["reason"]), "not found") {
		t.Fatalf("unregister twice: %v", m)
	}
	r.send("tool/call/req", map[string]any{"tool_name": "mcp.web.add"})
	if m := r.recv(); m["code"] != "unknown_tool" {
		t.Fatalf("after unregister: %v", m)
	}
	// The mcp namespace only when asked for in the handshake.
	r3 := openRaw(t, s)
	r3.handshake(key)
	r3.send("mcp/server/list/req", nil)
	if m := r3.recv(); m["type"] != "error" || m["code"] != "unknown_type" {
		t.Fatalf("mcp without the namespace: %v", m)
	}
	// Audit has the mcp calls.
	waitFor(t, 5*time.Second, "audit of the mcp calls", func() bool {
		return strings.Contains(string(s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).raw), "mcp.server.register")
	})
}

// fmtAny prints a decoded JSON value as fmt does, for Contains checks.
func fmtAny(v any) string { return fmt.Sprint(v) }
