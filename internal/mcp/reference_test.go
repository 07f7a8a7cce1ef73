package mcp_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/internal/tools"
)

// envServers names the directory @modelcontextprotocol/server-everything and
// server-filesystem 2026.8.31 are installed in (.ci/run installs them, and
// Node 22 with the conformance suite); without both TestReferenceServers
// skips.
const envServers = "SLUICE_TEST_MCP_SERVERS"

// TestReferenceServers uses the reference MCP servers through sluice's
// client: server-everything over stdio and streamable HTTP, and
// server-filesystem over stdio (it offers no HTTP transport).
func TestReferenceServers(t *testing.T) {
	dir, confDir := os.Getenv(envServers), os.Getenv(envConformance)
	if dir == "" || confDir == "" {
		t.Skip(envServers + " and " + envConformance + " name the npm installs (.ci/run makes them when npm is reachable)")
	}
	node := filepath.Join(confDir, "node_modules", ".bin", "node")
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol")
	everything := filepath.Join(pkg, "server-everything", "dist", "index.js")
	filesystem := filepath.Join(pkg, "server-filesystem", "dist", "index.js")
	for _, f := range []string{node, everything, filesystem} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s: %v", f, err)
		}
	}
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "note.txt"), []byte("hello from sluice"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	http := exec.Command(node, everything, "streamableHttp")
	http.Env = append(os.Environ(), "PORT="+port)
	if err := http.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = http.Process.Kill(); _ = http.Wait() })
	waitListening(t, "127.0.0.1:"+port)

	r := newRegistry(t, openStore(t), mcp.Options{Egress: loopback, CallTimeout: 30 * time.Second, Commands: map[string]config.MCPCommand{
		"everything": {Command: node, Args: []string{everything, "stdio"}},
		"filesystem": {Command: node, Args: []string{filesystem, files}},
	}})
	alice := principal("alice", "*")
	for _, g := range []mcp.Registration{
		{Name: "everything", Command: "everything"},
		{Name: "everythinghttp", URL: "http://127.0.0.1:" + port + "/mcp"},
		{Name: "filesystem", Command: "filesystem"},
	} {
		srv, err := r.Register(ctx, alice, g)
		if err != nil {
			t.Fatalf("register %s: %v", g.Name, err)
		}
		t.Logf("%s: %d tools: %s", g.Name, len(srv.Tools), strings.Join(srv.Tools, " "))
	}
	box := tools.New(r.Provider())
	for _, server := range []string{"everything", "everythinghttp"} {
		names := ""
		if list, err := box.List(ctx, alice, tools.ListOptions{Tags: []string{"mcp:" + server}}); err == nil {
			names = toolNames(list)
		}
		// Tools a server offers only to clients with roots, sampling or
		// elicitation are not offered to sluice, which advertises none.
		for _, absent := range []string{"get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"} {
			if strings.Contains(names, "."+absent+" ") || strings.HasSuffix(names, "."+absent) {
				t.Errorf("%s lists %s to a client without the capability", server, absent)
			}
		}
		res, err := box.Call(ctx, alice, "mcp."+server+".get-sum", map[string]any{"a": 2, "b": 3}, nil)
		if err != nil || !res.Success || !strings.Contains(fmt.Sprint(res.Data), "5") {
			t.Fatalf("%s get-sum: %+v %v", server, res, err)
		}
		var mu sync.Mutex
		var progress []string
		res, err = box.Call(ctx, alice, "mcp."+server+".trigger-long-running-operation", map[string]any{"duration": 1, "steps": 4}, func(e tools.Event) {
			d, _ := e.Data.(map[string]any)
			mu.Lock()
			progress = append(progress, fmt.Sprint(d["progress"]))
			mu.Unlock()
		})
		mu.Lock()
		got := strings.Join(progress, ",")
		mu.Unlock()
		if err != nil || !res.Success || got != "1,2,3,4" {
			t.Fatalf("%s long-running operation: progress %q, %+v %v", server, got, res, err)
		}
	}
	// simulate-research-query runs only as an MCP task (2025-11-25):
	// refused at once, naming the feature.
	for _, server := range []string{"everything", "everythinghttp"} {
		res, err := box.Call(ctx, alice, "mcp."+server+".simulate-research-query", map[string]any{"topic": "x"}, nil)
		if err != nil || res.Success || !strings.Contains(res.Error, "MCP task") {
			t.Fatalf("%s simulate-research-query: %+v %v", server, res, err)
		}
	}
	res, err := box.Call(ctx, alice, "mcp.filesystem.read_text_file", map[string]any{"path": filepath.Join(files, "note.txt")}, nil)
	if err != nil || !res.Success || !strings.Contains(fmt.Sprint(res.Data), "hello from sluice") {
		t.Fatalf("filesystem read_text_file: %+v %v", res, err)
	}
	res, err = box.Call(ctx, alice, "mcp.filesystem.read_text_file", map[string]any{"path": "/etc/passwd"}, nil)
	if err != nil || res.Success {
		t.Fatalf("filesystem outside its directory: %+v %v", res, err)
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func waitListening(t *testing.T, addr string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not listening: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
