package acpagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// lockedBuffer is what sluice wrote, read once the turns are over.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Every message sluice writes in a turn with every kind of update, a
// permission request and an error is valid against the ACP schema
// (schema/v1/schema.json of @agentclientprotocol/sdk 2.4.0, which .ci/run
// installs and names in SLUICE_TEST_ACP_SCHEMA; without it the test skips).
func TestOutputMatchesACPSchema(t *testing.T) {
	path := os.Getenv("SLUICE_TEST_ACP_SCHEMA")
	if path == "" {
		t.Skip("SLUICE_TEST_ACP_SCHEMA is not set (.ci/run sets it to the ACP schema of @agentclientprotocol/sdk 2.4.0)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://agentclientprotocol.com/schema/v1/schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	def := func(name string) *jsonschema.Schema {
		s, err := c.Compile(url + "#/$defs/" + name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return s
	}
	// What sluice writes, by what tells it apart.
	byMethod := map[string]*jsonschema.Schema{"session/update": def("SessionNotification"), "session/request_permission": def("RequestPermissionRequest")}
	byResultKey := map[string]*jsonschema.Schema{"protocolVersion": def("InitializeResponse"), "sessionId": def("NewSessionResponse"), "stopReason": def("PromptResponse")}
	errorObj := def("Error")
	// The check can fail: an update without its session is refused.
	if empty, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"update":{"sessionUpdate":"plan","entries":[]}}`))); byMethod["session/update"].Validate(empty) == nil {
		t.Fatal("the schema takes a session/update without sessionId")
	}

	var out lockedBuffer
	var calls atomic.Int32
	caller := &fakeCaller{answer: func(_ context.Context, env *e2a.Envelope) []*e2a.Response {
		n := calls.Add(1)
		switch {
		case env.Method == "capability.run":
			return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-1", "status": "waiting", "pending": map[string]any{
				"task": "judge", "prompt": "Ship?", "inputs": map[string]any{"n": 1.0}, "expected_output": map[string]any{
					"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}})}
		case env.Method == "capability.decide":
			return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-1", "status": "success", "outputs": map[string]any{"text": "shipped"}})}
		case n > 1:
			return []*e2a.Response{e2a.ErrorFrame("permission_denied", "no", map[string]any{"suggestions": []any{"ask"}})}
		}
		return []*e2a.Response{
			chunk("reasoning", "thinking"),
			chunk("custom", map[string]any{"type": "plan", "entries": []any{map[string]any{"content": "look", "priority": "high", "status": "in_progress"}}}),
			chunk("tool", map[string]any{"toolCallId": "t1", "title": "grep", "kind": "search", "status": "in_progress",
				"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": "found"}}}, "rawInput": map[string]any{"q": "x"}}),
			chunk("tool", map[string]any{"toolCallId": "t1", "status": "completed", "locations": []any{map[string]any{"path": "/p/a.go", "line": 3.0}}}),
			chunk("text", "hello"),
			e2a.CompleteFrame("hello"),
		}
	}}
	ed, sid := serveTee(t, "echo", caller, &out)
	prompt := func(ed *editor, sid acp.SessionId, text string) {
		_, _ = ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	}
	prompt(ed, sid, "streams")
	prompt(ed, sid, "refused")
	capEd, capSid := serveTee(t, "cap:a/b", caller, &out)
	capEd.Choose("yes")
	prompt(capEd, capSid, "{}")

	out.mu.Lock()
	defer out.mu.Unlock()
	sc := bufio.NewScanner(&out.b)
	sc.Buffer(nil, 1<<20)
	seen := map[string]int{}
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		var sch *jsonschema.Schema
		var v any
		var what string
		switch {
		case m["method"] != nil:
			what = m["method"].(string)
			sch, v = byMethod[what], m["params"]
		case m["error"] != nil:
			what, sch, v = "error", errorObj, m["error"]
		default:
			for k, s := range byResultKey {
				if _, ok := m["result"].(map[string]any)[k]; ok {
					what, sch, v = k, s, m["result"]
				}
			}
		}
		if sch == nil {
			t.Errorf("a message the test cannot place: %s", sc.Text())
			continue
		}
		seen[what]++
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(t, v)))
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s is not valid ACP: %v\n%s", what, err, sc.Text())
		}
	}
	for _, want := range []string{"session/update", "session/request_permission", "protocolVersion", "sessionId", "stopReason", "error"} {
		if seen[want] == 0 {
			t.Errorf("no %s was written: %v", want, seen)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
