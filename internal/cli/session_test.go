package cli_test

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

// `sluice session --stdio` serves a whole session from stdin to stdout.
func TestSessionStdio(t *testing.T) {
	key := "stdio-admin-" + strings.Repeat("k", 32)
	t.Setenv("SLUICE_ADMIN_KEY", key)
	in := sessionInput(key, `not json`, toolListLine)
	code, out, errOut := sluice(t, in, "session", "--stdio", "--data", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout holds a line that is not JSON: %q", sc.Text())
		}
		types = append(types, m["type"].(string)+":"+str(m["code"]))
	}
	if strings.Join(types, " ") != "handshake/resp: error:parse_error tool/list/resp: shutdown:" {
		t.Fatalf("session: %v\n%s", types, out)
	}
	if strings.Contains(out+errOut, key) {
		t.Fatal("the key was printed")
	}
}

// sessionInput is a stdio session: the handshake with key, lines, then
// shutdown.
func sessionInput(key string, lines ...string) string {
	all := []string{`{"a2e":"1.0","type":"handshake/req","id":"` + sessionLineID(1) +
		`","ts":1,"agent_caps":["tools"],"auth_token":"` + key + `"}`}
	all = append(all, lines...)
	all = append(all, `{"a2e":"1.0","type":"shutdown","id":"`+sessionLineID(3)+`","ts":1}`)
	return strings.Join(all, "\n") + "\n"
}

var toolListLine = `{"a2e":"1.0","type":"tool/list/req","id":"` + sessionLineID(2) + `","ts":1}`

func sessionLineID(n int) string { return strings.Repeat("0", 31) + string(rune('0'+n)) }

func str(v any) string { s, _ := v.(string); return s }

// `sluice session call` calls one tool over the server's WebSocket.
func TestSessionCall(t *testing.T) {
	srv := adminServer(t)
	_, out, _ := sluice(t, "", "accounts", "create", "--name", "caller", "--operations", "FilterData")
	var created struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	t.Setenv("SLUICE_API_KEY", created.APIKey)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/v1/session"
	args := `{"inputPath":"/input/xs","conditions":[{"field":"v","operator":">=","value":2}],"input":{"xs":[{"v":1},{"v":2},{"v":3}]}}`
	code, out, errOut := sluice(t, "", "session", "call", "op.FilterData", "--args", args, "--url", url)
	if code != 0 || !strings.Contains(out, `"success": true`) || !strings.Contains(out, `"v": 3`) {
		t.Fatalf("call: %d %s %s", code, out, errOut)
	}
	code, _, errOut = sluice(t, "", "session", "call", "op.ApiCall", "--args", `{}`, "--url", url)
	if code != cli.ExitFailed || !strings.Contains(errOut, "tool_denied") {
		t.Fatalf("denied: %d %s", code, errOut)
	}
	code, _, _ = sluice(t, "", "session", "call", "op.FilterData", "--args", `[1]`, "--url", url)
	if code != cli.ExitInvalid {
		t.Fatalf("bad --args: %d", code)
	}
}

// `sluice session --stdio` on its own sluice traces as serve does, from the
// same OTEL_* variables, and exports its spans before it exits.
func TestEmbeddedSessionExportsItsSpans(t *testing.T) {
	rcv := telemetrytest.NewReceiver(t)
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "sluice-session")
	key := "stdio-admin-" + strings.Repeat("k", 32)
	t.Setenv("SLUICE_ADMIN_KEY", key)
	in := sessionInput(key, toolListLine)
	code, _, errOut := sluice(t, in, "session", "--stdio", "--data", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// No waiting: the command flushed its spans before it returned.
	spans := rcv.Spans(t)
	var names []string
	for _, s := range spans {
		if s.Service != "sluice-session" || s.Role != "gateway" {
			t.Errorf("span %q of service %q, role %q", s.Name, s.Service, s.Role)
		}
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "tool.list") {
		t.Fatalf("spans exported: %v; want the tool.list call's", names)
	}
	rcv.AssertNoSecret(t, key)
}
