package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// sluiceMCP is `sluice mcp --stdio ARGS...` as a host spawns it, with key
// as SLUICE_API_KEY; stderr is kept for the failure message.
func sluiceMCP(t *testing.T, key string, env []string, args ...string) (*mcp.CommandTransport, *childOutput) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	stderr := &childOutput{}
	cmd.Stderr = stderr
	// The caller's env goes last: of a key given twice the last value counts
	// (a measurement asks for SLUICE_LOG_LEVEL=warn over the tests' debug).
	cmd.Env = append(os.Environ(), "SLUICE_TEST_MAIN_ARGS="+strings.Join(append([]string{"mcp", "--stdio"}, args...), "\x1f"),
		"SLUICE_API_KEY="+key, "SLUICE_LOG_LEVEL=debug")
	cmd.Env = append(cmd.Env, env...)
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, stderr
}

// childOutput is a child's stderr, read while the child may still write it.
type childOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (c *childOutput) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.Write(p)
}

func (c *childOutput) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

func connectMCP(t *testing.T, tr mcp.Transport, stderr *childOutput) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	return cs
}

// callValidate lists the tools and validates a workflow through cs.
func callValidate(t *testing.T, cs *mcp.ClientSession, stderr *childOutput) {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list: %v\nstderr:\n%s", err, stderr)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	if !names["workflow.validate"] || !names["sluice.search"] {
		t.Fatalf("tools: %v", names)
	}
	doc := `{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}` + "\n" +
		`{"type":"beginExecution","executionId":"x","operationOrder":["w"]}` + "\n"
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow.validate", Arguments: map[string]any{"workflow": doc}})
	if err != nil {
		t.Fatalf("call: %v\nstderr:\n%s", err, stderr)
	}
	// The admin account has no operation grants: the report says why the
	// document is not valid, which is the tool's answer all the same.
	if got := r.Content[len(r.Content)-1].(*mcp.TextContent).Text; !strings.Contains(got, `"valid":`) {
		t.Fatalf("call: %s", got)
	}
}

// `sluice mcp --stdio` embedded: the whole server in the host's child, only
// MCP on stdout (the go-sdk's client reads nothing else).
func TestMCPStdioEmbedded(t *testing.T) {
	key := "mcp-admin-" + strings.Repeat("k", 32)
	tr, stderr := sluiceMCP(t, key, []string{"SLUICE_ADMIN_KEY=" + key}, "--data", t.TempDir())
	cs := connectMCP(t, tr, stderr)
	defer cs.Close()
	callValidate(t, cs, stderr)
	if strings.Contains(stderr.String(), key) {
		t.Fatal("the key was logged")
	}
}

// `sluice mcp --stdio --url` relays to a server's /mcp; a wrong key is the
// server's refusal, on stdio.
func TestMCPStdioRelay(t *testing.T) {
	key := "mcp-admin-" + strings.Repeat("r", 32)
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.AdminKey = config.NewSecret(key)
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	srv := httptest.NewServer(app.Server.Handler())
	defer srv.Close()

	tr, stderr := sluiceMCP(t, key, nil, "--url", srv.URL+"/mcp")
	cs := connectMCP(t, tr, stderr)
	callValidate(t, cs, stderr)
	cs.Close()

	tr, stderr = sluiceMCP(t, "sk-wrong", nil, "--url", srv.URL+"/mcp")
	_, err = mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err == nil || !strings.Contains(err.Error(), "key") {
		t.Fatalf("a wrong key: %v\nstderr:\n%s", err, stderr)
	}
}
