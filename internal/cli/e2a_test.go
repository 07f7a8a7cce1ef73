package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

const legacyRequest = `{"request_id":"req_legacy_1","channel_id":"feishu","session_id":"sess_feishu_1","req_method":"chat.send","is_stream":true,"timestamp":1774524781.15,"params":{"content":"List desktop files"},"metadata":{"feishu_open_id":"ou_xxx"}}`

func TestE2ANormalize(t *testing.T) {
	code, out, errOut := sluice(t, legacyRequest, "e2a", "normalize")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e["channel"] != "feishu" || e["method"] != "chat.send" || e["timestamp"] != "2026-03-26T11:33:01.150000+00:00" ||
		e["channel_context"].(map[string]any)["feishu_open_id"] != "ou_xxx" || e["auth"] != nil || len(e) != 29 {
		t.Fatalf("normalized: %s", out)
	}
	if !strings.HasPrefix(out, "{\n  \"protocol_version\": \"1.0\",\n  \"provenance\": {") {
		t.Fatalf("fields out of the reference's order: %s", out)
	}
	code, out, _ = sluice(t, legacyRequest, "e2a", "normalize", "--compact")
	if code != cli.ExitOK || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, `{"protocol_version":"1.0","provenance":`) {
		t.Fatalf("--compact: %q", out)
	}
}

// TestE2ANormalizeA2AAndACP: normalize takes an A2A SendMessage (JSON-RPC in
// 1.0 or 0.3 method names, or the request alone) and an ACP session/prompt
// (before, the A2A request failed with "message: unknown field").
func TestE2ANormalizeA2AAndACP(t *testing.T) {
	cases := []struct {
		in, method, source, session string
	}{
		{`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`, "session/prompt", "a2a", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, "session/prompt", "a2a", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`, "session/prompt", "a2a", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`, "session/prompt", "acp", "s"},
	}
	for _, c := range cases {
		code, out, errOut := sluice(t, c.in, "e2a", "normalize")
		var e struct {
			Method     string
			SessionID  string `json:"session_id"`
			Provenance struct {
				SourceProtocol string `json:"source_protocol"`
			}
			Params struct {
				Message map[string]any
			}
		}
		if code != cli.ExitOK || json.Unmarshal([]byte(out), &e) != nil || e.Method != c.method || e.Provenance.SourceProtocol != c.source || e.SessionID != c.session {
			t.Errorf("%.60s: exit %d %s %s", c.in, code, out, errOut)
		}
		if c.source == "a2a" && (e.Params.Message["role"] != "ROLE_USER" || e.Params.Message["kind"] != nil) {
			t.Errorf("%.60s: the message is not A2A 1.0: %v", c.in, e.Params.Message)
		}
	}
}

func TestE2ABadInput(t *testing.T) {
	cases := []struct {
		args      []string
		stdin     string
		wantInErr string
	}{
		{[]string{"normalize"}, `{"identity_origin":"bot"}`, "identity_origin"},
		{[]string{"normalize"}, ``, "must be an object"},
		{[]string{"normalize"}, `{"identity_origin":""}`, "identity_origin"},
		{[]string{"normalize"}, `{"a":` + strings.Repeat(" ", 1<<20) + `1}`, "larger than the 1048576-byte limit"},
		{[]string{"to-acp"}, `[1]`, "must be an object"},
		{[]string{"to-acp"}, `{"method":"session/prompt","acp_meta":{"a":1},"params":{"text":"x","_meta":1}}`, "params._meta"},
		{[]string{"response-to-acp"}, `{"response_id":"r"}`, "is required"},
		{[]string{"response-to-a2a"}, `{"nope":1}`, "is required"},
		{[]string{"normalize", "extra-arg"}, `{}`, "unknown command"},
		{[]string{"normalize"}, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, "method"},
		{[]string{"to-acp"}, `{"method":"session/prompt","params":{}}`, "params.prompt"},
	}
	for _, c := range cases {
		code, out, errOut := sluice(t, c.stdin, append([]string{"e2a"}, c.args...)...)
		if code != cli.ExitInvalid || out != "" || !strings.Contains(errOut, c.wantInErr) {
			t.Errorf("%v %.40q: exit %d, stdout %q, stderr %q", c.args, c.stdin, code, out, errOut)
		}
	}
}

func TestE2AToACP(t *testing.T) {
	in := `{"method":"session/prompt","session_id":"s1","jsonrpc_id":42,"params":{"content":"hi"}}`
	code, out, errOut := sluice(t, in, "e2a", "to-acp", "--compact")
	want := `{"jsonrpc":"2.0","id":42,"method":"session/prompt","params":{"content":"hi","prompt":[{"text":"hi","type":"text"}],"sessionId":"s1"}}` + "\n"
	if code != cli.ExitOK || out != want {
		t.Fatalf("exit %d %s\n got %s\nwant %s", code, errOut, out, want)
	}
}

const frameTmpl = `{"protocol_version":"1.0","response_id":"r1","request_id":"q","sequence":0,"is_final":true,"status":"failed","response_kind":"KIND","timestamp":"2026-03-29T12:00:00+00:00","provenance":{"source_protocol":"e2a"},"body":BODY,"jsonrpc_id":7}`

func frameJSON(kind, body string) string {
	return strings.NewReplacer("KIND", kind, "BODY", body).Replace(frameTmpl)
}

func TestE2AResponseProjections(t *testing.T) {
	errFrame := frameJSON("e2a.error", `{"code":"permission_denied","message":"no","details":null}`)
	code, out, _ := sluice(t, errFrame, "e2a", "response-to-acp", "--compact")
	if code != cli.ExitOK || out != `{"error":{"code":-32603,"data":{"e2a_code":"permission_denied"},"message":"no"},"id":7,"jsonrpc":"2.0"}`+"\n" {
		t.Fatalf("response-to-acp: %d %s", code, out)
	}
	code, out, _ = sluice(t, frameJSON("cron", `{}`), "e2a", "response-to-acp")
	if code != cli.ExitOK || out != "null\n" {
		t.Fatalf("not applicable must print null: %d %q", code, out)
	}
	stream := strings.Replace(frameJSON("a2a.stream_event", `{"branch":"artifact_update","payload":{"taskId":"t"}}`), `"status":"failed"`, `"status":"succeeded"`, 1)
	code, out, _ = sluice(t, stream, "e2a", "response-to-a2a", "--compact")
	if code != cli.ExitOK || out != `{"artifactUpdate":{"artifact":{"artifactId":"output","parts":[]},"contextId":"q","taskId":"t"}}`+"\n" {
		t.Fatalf("response-to-a2a: %d %s", code, out)
	}
	complete := strings.Replace(frameJSON("e2a.complete", `{"result":{"n":1}}`), `"status":"failed"`, `"status":"succeeded"`, 1)
	code, out, _ = sluice(t, complete, "e2a", "response-to-a2a", "--result", "--compact")
	if code != cli.ExitOK || !strings.HasPrefix(out, `{"task":{"contextId":"q","id":"q","status":{"message":`) || strings.Contains(out, "final") {
		t.Fatalf("response-to-a2a --result: a SendMessage result is a Task: %d %s", code, out)
	}
	code, out, _ = sluice(t, frameJSON("acp.prompt_result", `{}`), "e2a", "response-to-a2a")
	if code != cli.ExitOK || out != "null\n" {
		t.Fatalf("not applicable must print null: %d %q", code, out)
	}
}

func TestE2ACheckStream(t *testing.T) {
	chunk := strings.NewReplacer(`"is_final":true`, `"is_final":false`, `"status":"failed"`, `"status":"in_progress"`).Replace(frameJSON("e2a.chunk", `{"delta_kind":"text","delta":"x"}`))
	final := strings.NewReplacer(`"response_id":"r1"`, `"response_id":"r2"`, `"sequence":0`, `"sequence":1`, `"status":"failed"`, `"status":"succeeded"`).
		Replace(frameJSON("e2a.complete", `{"result":1}`))
	code, out, _ := sluice(t, chunk+"\n"+final+"\n", "e2a", "check-stream")
	var rep struct {
		OK         bool
		Frames     int
		Violations []struct{ Rule string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cli.ExitOK || !rep.OK || rep.Frames != 2 {
		t.Fatalf("good stream: exit %d %s", code, out)
	}
	code, out, _ = sluice(t, chunk+"\n", "e2a", "check-stream")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cli.ExitFailed || rep.OK || rep.Violations[0].Rule != "missing_final" {
		t.Fatalf("open stream: exit %d %s", code, out)
	}
	if code, _, _ := sluice(t, chunk+"\n", "e2a", "check-stream", "--allow-open"); code != cli.ExitOK {
		t.Fatalf("--allow-open: exit %d", code)
	}
	code, out, _ = sluice(t, final+"\n"+chunk+"\nnot json\n", "e2a", "check-stream", "--compact")
	if code != cli.ExitFailed || !strings.Contains(out, `"rule":"sequence_start"`) || !strings.Contains(out, `"rule":"invalid_frame"`) || strings.Count(out, "\n") != 1 {
		t.Fatalf("bad stream: exit %d %s", code, out)
	}
}
