package cli_test

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// `sluice acp --stdio` answers every request an editor wrote before closing
// stdin, and writes nothing but ACP messages on stdout; a prompt to an agent
// that is not registered is a JSON-RPC error, not the end of the session.
func TestACPStdioAnswersWhatWasAsked(t *testing.T) {
	key := "acp-admin-" + strings.Repeat("m", 32)
	t.Setenv("SLUICE_ADMIN_KEY", key)
	t.Setenv("SLUICE_API_KEY", key)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":"three","method":"session/load","params":{"sessionId":"s","cwd":"/p","mcpServers":[]}}`,
	}, "\n") + "\n"
	code, out, errOut := sluice(t, in, "acp", "--stdio", "--agent", "nobody", "--data", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	answers := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %q", sc.Text())
		}
		b, _ := json.Marshal(m["id"])
		answers[string(b)] = m
	}
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if strings.Join(ids, " ") != `"three" 1 2` {
		t.Fatalf("answers to %v\n%s", ids, out)
	}
	if e, _ := answers[`"three"`]["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Fatalf("session/load is not offered, so it is an unknown method: %v", answers[`"three"`])
	}
	if strings.Contains(out+errOut, key) {
		t.Fatal("the key was printed")
	}
}

// Flags are checked before anything starts.
func TestACPStdioFlags(t *testing.T) {
	t.Setenv("SLUICE_API_KEY", "k")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"acp", "--agent", "x"}, "--stdio"},
		{[]string{"acp", "--stdio"}, "--agent is required"},
		{[]string{"acp", "--stdio", "--agent", "cap:nons"}, "cap:NAMESPACE/ID"},
		{[]string{"acp", "--stdio", "--agent", "flow:/no/such/file.json"}, "flow:/no/such/file.json"},
		{[]string{"acp", "--stdio", "--agent", "wf:x"}, `"wf:" is not a kind`},
		{[]string{"acp", "--stdio", "--agent", "bad name!"}, "--agent"},
	} {
		code, out, errOut := sluice(t, "", c.args...)
		if code != cli.ExitInvalid || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}
