package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// `sluice session --stdio --url` answers every call of an input that ends
// before its answers come: it read 0 to 2 answers of 13 from a file, as it
// closed the WebSocket at the end of stdin.
func TestSessionRelayWaitsForAnswersAfterEndOfInput(t *testing.T) {
	srv := adminServer(t)
	_, out, _ := sluice(t, "", "accounts", "create", "--name", "relayed", "--operations", "Wait", "--limit", "max_concurrent_executions=20")
	var created struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/v1/session"
	id := func(n int) string { return fmt.Sprintf("%032x", n) }
	lines := []string{`{"a2e":"1.0","type":"handshake/req","id":"` + id(1000) + `","ts":1,"agent_caps":["tools"],"auth_token":"` + created.APIKey + `"}`}
	const calls = 13
	for i := range calls {
		lines = append(lines, fmt.Sprintf(`{"a2e":"1.0","type":"tool/call/req","id":"%s","ts":1,"tool_name":"op.Wait","arguments":{"duration":%d},"timeout":30}`, id(i), 100+20*i))
	}
	code, out, errOut := sluice(t, strings.Join(lines, "\n")+"\n", "session", "--stdio", "--url", url)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	answered := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m struct {
			Type  string `json:"type"`
			ReqID string `json:"req_id"`
			Data  struct {
				Success bool `json:"success"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		if m.Type == "tool/call/resp" && m.Data.Success {
			answered[m.ReqID] = true
		}
	}
	if len(answered) != calls {
		t.Fatalf("%d of %d calls answered:\n%s", len(answered), calls, out)
	}
}
