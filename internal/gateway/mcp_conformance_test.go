package gateway_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The server scenarios of @modelcontextprotocol/conformance 0.1.16 that
// test a server's protocol rather than the suite's own test tools, run
// against sluice's /mcp. The suite sends no credentials, so a proxy in
// the test adds the account's key (sluice refuses any MCP message without
// one). The other server scenarios call tools, prompts and resources by
// the names of the suite's reference server (test_simple_text,
// test_image_content, ...), which an account's catalogue does not have;
// docs/protocols/mcp.md says which and why.
var mcpServerScenarios = []string{
	"server-initialize", "ping", "tools-list", "resources-list", "server-sse-polling",
	"server-sse-multiple-streams", "dns-rebinding-protection",
}

func TestMCPConformanceServer(t *testing.T) {
	dir := os.Getenv("SLUICE_TEST_MCP_CONFORMANCE")
	if dir == "" {
		t.Skip("SLUICE_TEST_MCP_CONFORMANCE is not set (.ci/run installs @modelcontextprotocol/conformance 0.1.16 when npm answers)")
	}
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"FilterData", "TransformData"}}, nil)
	target, _ := url.Parse(s.http.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // streams pass at once
	base := proxy.Director
	proxy.Director = func(r *http.Request) {
		base(r) // the Host and Origin the suite sent pass on as they are
		r.Header.Set("Authorization", "Bearer "+key)
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	for _, scenario := range mcpServerScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", front.URL+"/mcp", "--scenario", scenario)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			t.Logf("%s", lastLines(out.String(), 12))
			if err != nil {
				t.Fatalf("scenario %s failed: %v", scenario, err)
			}
		})
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
