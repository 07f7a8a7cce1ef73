package cli_test

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// `sluice mcp --stdio` answers every request a host wrote before closing
// stdin, and writes nothing but MCP messages on stdout.
func TestMCPStdioAnswersWhatWasAsked(t *testing.T) {
	key := "stdio-admin-" + strings.Repeat("m", 32)
	t.Setenv("SLUICE_ADMIN_KEY", key)
	t.Setenv("SLUICE_API_KEY", key)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"sluice.search","arguments":{"query":"validate a workflow"}}}`,
	}, "\n") + "\n"
	code, out, errOut := sluice(t, in, "mcp", "--stdio", "--data", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ids []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %q", sc.Text())
		}
		if m["error"] != nil {
			t.Fatalf("an error: %v", m)
		}
		b, _ := json.Marshal(m["id"])
		ids = append(ids, string(b))
	}
	slices.Sort(ids) // requests are answered as they finish, not in order
	if strings.Join(ids, " ") != `"three" 1 2` {
		t.Fatalf("answers to %v\n%s", ids, out)
	}
	if !strings.Contains(out, "workflow.validate") {
		t.Fatalf("the search found nothing: %s", out)
	}
	if strings.Contains(out+errOut, key) {
		t.Fatal("the key was printed")
	}
}

// A key that does not authenticate ends the command before any MCP message.
func TestMCPStdioRefusesAWrongKey(t *testing.T) {
	t.Setenv("SLUICE_API_KEY", "sk-wrong")
	code, out, errOut := sluice(t, "", "mcp", "--stdio", "--data", t.TempDir())
	if code != cli.ExitInvalid || out != "" || !strings.Contains(errOut, "SLUICE_API_KEY") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
