package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/acpagent/acptest"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// fakeCaller answers each call with frames made by answer.
type fakeCaller struct {
	mu     sync.Mutex
	calls  []*e2a.Envelope
	answer func(ctx context.Context, env *e2a.Envelope) []*e2a.Response
}

func (f *fakeCaller) Call(ctx context.Context, env *e2a.Envelope, sink e2a.FrameSink) error {
	f.mu.Lock()
	f.calls = append(f.calls, env)
	f.mu.Unlock()
	for _, r := range f.answer(ctx, env) {
		if err := sink.WriteFrame(r); err != nil {
			return err
		}
	}
	return nil
}

// editor is acptest's editor over pipes to Serve.
type editor struct {
	*acptest.Editor
	conn *acp.ClientSideConnection
}

func serveTo(t *testing.T, target string, c Caller, o ...func(*Options)) (*editor, acp.SessionId) {
	t.Helper()
	return serveTee(t, target, c, nil, o...)
}

// serveTee is serveTo with what sluice writes copied to tee as well.
func serveTee(t *testing.T, target string, c Caller, tee io.Writer, o ...func(*Options)) (*editor, acp.SessionId) {
	t.Helper()
	tgt, err := ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts := Options{Target: tgt, Caller: c, Version: "test"}
	for _, f := range o {
		f(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var out io.Writer = outW
	if tee != nil {
		out = io.MultiWriter(outW, tee)
	}
	go func() { defer close(done); _ = Serve(ctx, inR, out, opts) }()
	t.Cleanup(func() { cancel(); inW.Close(); <-done })
	ed := &editor{Editor: &acptest.Editor{}}
	ed.conn = acp.NewClientSideConnection(ed.Editor, inW, outR)
	t.Cleanup(func() {
		if m := ed.Misuse(); len(m) > 0 {
			t.Errorf("sluice called the editor's %v", m)
		}
	})
	ed.conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := ed.conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := ed.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: "/p", McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return ed, s.SessionId
}

func chunk(kind string, delta any) *e2a.Response { return e2a.ChunkFrame(kind, delta) }

// The contract's chunks become session updates in order; text streamed is
// not sent again from the final frame.
func TestPromptStreamsChunksAsUpdates(t *testing.T) {
	c := &fakeCaller{answer: func(context.Context, *e2a.Envelope) []*e2a.Response {
		return []*e2a.Response{
			chunk("reasoning", "thinking"),
			chunk("custom", map[string]any{"type": "plan", "entries": []any{map[string]any{"content": "look", "priority": "high", "status": "in_progress"}}}),
			chunk("tool", map[string]any{"toolCallId": "t1", "title": "grep", "kind": "search", "status": "in_progress"}),
			chunk("tool", map[string]any{"toolCallId": "t1", "status": "completed"}),
			chunk("custom", map[string]any{"type": "progress", "pct": 50}), // no ACP update
			chunk("text", "hel"),
			chunk("text", "lo"),
			e2a.CompleteFrame(map[string]any{"text": "hello"}),
		}
	}}
	ed, sid := serveTo(t, "echo", c)
	r, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("hi"), acp.TextBlock("there")}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("%+v %v", r, err)
	}
	var kinds []string
	for _, u := range ed.Updates() {
		b, _ := json.Marshal(u)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		kinds = append(kinds, m["sessionUpdate"].(string))
	}
	if got := strings.Join(kinds, " "); got != "agent_thought_chunk plan tool_call tool_call_update agent_message_chunk agent_message_chunk" {
		t.Fatalf("updates: %s", got)
	}
	// The call: agent.invoke, streaming, the prompt's text, session and cwd.
	env := c.calls[0]
	in := env.Params["input"].(map[string]any)
	if env.Method != e2a.MethodAgentInvoke || env.Params["agent"] != "echo" || env.Params["streaming"] != true ||
		in["text"] != "hi\n\nthere" || in["sessionId"] != string(sid) || in["cwd"] != "/p" || len(in["prompt"].([]any)) != 2 {
		t.Fatalf("the call: %s %v", env.Method, env.Params)
	}
}

// Only the final frame: the whole output is one agent_message_chunk.
func TestPromptFinalFrameOnly(t *testing.T) {
	c := &fakeCaller{answer: func(context.Context, *e2a.Envelope) []*e2a.Response {
		return []*e2a.Response{e2a.CompleteFrame(json.RawMessage(`{"answer":42}`))}
	}}
	ed, sid := serveTo(t, "echo", c)
	if _, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("q")}}); err != nil {
		t.Fatal(err)
	}
	if len(ed.Updates()) != 1 || ed.Updates()[0].AgentMessageChunk == nil || ed.Updates()[0].AgentMessageChunk.Content.Text.Text != "{\n  \"answer\": 42\n}" {
		t.Fatalf("updates: %+v", ed.Updates())
	}
}

// A refusal is a JSON-RPC error with the ACP code of its fault code and its
// message; images are refused, naming the block.
func TestPromptErrors(t *testing.T) {
	c := &fakeCaller{answer: func(context.Context, *e2a.Envelope) []*e2a.Response {
		return []*e2a.Response{e2a.ErrorFrame("unauthenticated", "the key was revoked", map[string]any{"suggestions": []any{"ask for a new key"}})}
	}}
	ed, sid := serveTo(t, "echo", c)
	_, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("q")}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || re.Message != "the key was revoked" || !strings.Contains(re.Error(), "ask for a new key") {
		t.Fatalf("%v", err)
	}
	_, err = ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("q"), acp.ImageBlock("AAAA", "image/png")}})
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Error(), "prompt[1]") {
		t.Fatalf("an image: %v", err)
	}
	_, err = ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(strings.Repeat("x", maxPromptBytes+1))}})
	if !errors.As(err, &re) || re.Code != fault.TooLarge.Row().ACP || !strings.Contains(re.Message, "over") {
		t.Fatalf("a large prompt: %v", err)
	}
}

// session/cancel cancels the call's context and ends the turn cancelled.
func TestPromptCancel(t *testing.T) {
	started := make(chan struct{})
	c := &fakeCaller{answer: func(ctx context.Context, _ *e2a.Envelope) []*e2a.Response {
		close(started)
		<-ctx.Done()
		return []*e2a.Response{e2a.ErrorFrame("cancelled", "cancelled", nil)}
	}}
	ed, sid := serveTo(t, "echo", c)
	go func() {
		<-started
		_ = ed.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: sid})
	}()
	r, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("q")}})
	if err != nil || r.StopReason != acp.StopReasonCancelled {
		t.Fatalf("%+v %v", r, err)
	}
}

// A capability's question without options is handed back as text, and the
// next prompt answers it; an answer the run refuses leaves the question
// asked.
func TestCapabilityQuestionHandedBack(t *testing.T) {
	var decides atomic.Int32
	c := &fakeCaller{answer: func(_ context.Context, env *e2a.Envelope) []*e2a.Response {
		if env.Method == "capability.run" {
			return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-1", "status": "waiting", "pending": map[string]any{
				"task": "name", "type": "prompt", "prompt": "Which city?", "expected_output": map[string]any{
					"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}})}
		}
		if decides.Add(1) == 1 {
			return []*e2a.Response{e2a.ErrorFrame("invalid", "the answer to task \"name\": city is too short", nil)}
		}
		answer, _ := json.Marshal(env.Params["answer"])
		return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-1", "status": "success", "outputs": map[string]any{"text": "got " + string(answer)}})}
	}}
	ed, sid := serveTo(t, "cap:geo/City", c)
	p := func(text string) {
		t.Helper()
		if r, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%+v %v", r, err)
		}
	}
	p("weather")
	_, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("L")}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, "too short") {
		t.Fatalf("a refused answer: %v", err)
	}
	p("Lisbon")
	if c.calls[0].Params["inputs"].(map[string]any)["text"] != "weather" || c.calls[2].Method != "capability.decide" || c.calls[2].Params["id"] != "run-1" {
		t.Fatalf("calls: %v %v", c.calls[0].Params, c.calls[1].Params)
	}
	last := ed.Updates()[len(ed.Updates())-1].AgentMessageChunk.Content.Text.Text
	if !strings.Contains(ed.Updates()[0].AgentMessageChunk.Content.Text.Text, "Which city?") || last != `got {"city":"Lisbon"}` {
		t.Fatalf("updates: %q … %q", ed.Updates()[0].AgentMessageChunk.Content.Text.Text, last)
	}
}

func TestUpdateOf(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range []struct {
		body map[string]any
		ok   bool
		err  string
	}{
		{map[string]any{"delta_kind": "text", "delta": 3}, false, "must be a string"},
		{map[string]any{"delta_kind": "tool", "delta": map[string]any{"title": "x"}}, false, "toolCallId"},
		{map[string]any{"delta_kind": "tool", "delta": map[string]any{"toolCallId": "a", "content": "no"}}, false, "tool_call"},
		{map[string]any{"delta_kind": "tool", "delta": map[string]any{"toolCallId": "a"}}, true, ""},
		{map[string]any{"delta_kind": "custom", "delta": map[string]any{"type": "plan", "entries": "no"}}, false, "plan"},
		{map[string]any{"delta_kind": "custom", "delta": "x"}, false, ""},
		{map[string]any{"delta_kind": "sound", "delta": "x"}, false, "not one of"},
	} {
		_, ok, err := updateOf(c.body, seen)
		if ok != c.ok || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v: ok %v, err %v; want ok %v, err %q", c.body, ok, err, c.ok, c.err)
		}
	}
	if u, _, _ := updateOf(map[string]any{"delta_kind": "tool", "delta": map[string]any{"toolCallId": "a"}}, seen); u.ToolCallUpdate == nil {
		t.Fatal("a tool call seen before is updated")
	}
}

func FuzzUpdateOf(f *testing.F) {
	f.Add(`{"delta_kind":"tool","delta":{"toolCallId":"a","title":"t","status":"completed","content":[{"type":"content","content":{"type":"text","text":"x"}}]}}`)
	f.Add(`{"delta_kind":"custom","delta":{"type":"plan","entries":[{"content":"a","priority":"low","status":"pending"}]}}`)
	f.Add(`{"delta_kind":"text","delta":"hi"}`)
	f.Fuzz(func(t *testing.T, s string) {
		var body map[string]any
		if json.Unmarshal([]byte(s), &body) != nil {
			return
		}
		u, ok, err := updateOf(body, map[string]bool{})
		if ok && err == nil {
			if _, err := json.Marshal(u); err != nil {
				t.Fatalf("an update that cannot be written: %v", err)
			}
		}
	})
}

func TestDecisionOf(t *testing.T) {
	enum := &client.Pending{Task: "judge", Prompt: "Ship it?", Expected: map[string]any{"type": "object",
		"properties": map[string]any{"verdict": map[string]any{"type": "string", "enum": []any{"approve", "deny"}}}}}
	d := decisionOf("run-1", enum)
	if d == nil || len(d.Options) != 2 || d.Options[0].Reject || !d.Options[1].Reject || d.Title != "Ship it?" ||
		d.Options[1].Answer.(map[string]any)["verdict"] != "deny" {
		t.Fatalf("%+v", d)
	}
	boolean := &client.Pending{Task: "ok", Expected: map[string]any{"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}
	if d := decisionOf("r", boolean); d == nil || d.Options[0].Name != "yes" || d.Options[1].Answer.(map[string]any)["ok"] != false {
		t.Fatalf("%+v", d)
	}
	free := &client.Pending{Expected: map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}}}
	if decisionOf("r", free) != nil {
		t.Fatal("two free members have no options")
	}
}

// Sessions are bounded: the one idle longest makes room; an idle one is
// forgotten; one in a prompt is not taken twice.
func TestSessionsBounded(t *testing.T) {
	now := time.Unix(0, 0)
	ss := newSessions(2, time.Minute, func() time.Time { return now })
	a, _ := ss.open("")
	now = now.Add(time.Second)
	b, _ := ss.open("")
	if _, err := ss.take(b.id); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.take(b.id); err == nil {
		t.Fatal("a session in a prompt was taken twice")
	}
	c, err := ss.open("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.take(a.id); err == nil {
		t.Fatal("the session idle longest was kept")
	}
	if _, err := ss.take(c.id); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.open(""); fault.KindOf(err) != fault.RateLimited {
		t.Fatalf("with every session in a prompt: %v", err)
	}
	ss.release(b)
	now = now.Add(2 * time.Minute)
	if _, err := ss.take(b.id); err == nil {
		t.Fatal("a session idle past the timeout was kept")
	}
}

// wire is frame r as run.events stores it: its JSON, decoded.
func wire(t *testing.T, r *e2a.Response) map[string]any {
	t.Helper()
	r.RequestID, r.ResponseID, r.ProtocolVersion = "req-1", e2a.NewUUID(), "1.0"
	now := time.Now()
	r.Timestamp = &now
	b, err := e2a.AppendResponse(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// An agent workflow's run: a failed step is a failed tool call and the
// turn's error names the step; a cancelled turn cancels the run.
func TestFlowFailedAndCancelled(t *testing.T) {
	flow := t.TempDir() + "/flow.json"
	if err := os.WriteFile(flow, []byte(`{"workflow_id": "w", "name": "n", "version": "1.0.0", "start_step": "a",
		"steps": {"a": {"id": "a", "agent_name": "echo", "next_step": null}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	block := make(chan struct{})
	following := make(chan struct{}, 1)
	var cancelled []string
	var mu sync.Mutex
	c := &fakeCaller{answer: func(ctx context.Context, env *e2a.Envelope) []*e2a.Response {
		switch env.Method {
		case "agent.workflow.run":
			return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-9", "status": "queued"})}
		case "agent.workflow.cancel":
			mu.Lock()
			cancelled = append(cancelled, env.Params["id"].(string))
			mu.Unlock()
			return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-9", "status": "cancelled"})}
		}
		if env.Params["run_id"] != "run-9" {
			t.Errorf("run.events of %v", env.Params)
		}
		ev := func(kind string) *e2a.Response {
			return chunk("custom", wire(t, e2a.ChunkFrame("custom", map[string]any{"type": "execution.event", "kind": kind, "operationId": "a"})))
		}
		select {
		case <-block:
			following <- struct{}{}
			<-ctx.Done()
			return nil
		default:
		}
		return []*e2a.Response{ev("started"), ev("failed"),
			chunk("custom", wire(t, e2a.CompleteFrame(map[string]any{"status": "failed", "failed_step": "a"}))),
			e2a.CompleteFrame(map[string]any{"run_id": "run-9", "ended": true})}
	}}
	ed, sid := serveTo(t, "flow:"+flow, c)
	_, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("q")}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32010 || !strings.Contains(re.Message, "failed at step a") {
		t.Fatalf("a failed run: %v", err)
	}
	if u := ed.Updates(); len(u) != 2 || u[0].ToolCall == nil || u[1].ToolCallUpdate == nil || *u[1].ToolCallUpdate.Status != acp.ToolCallStatusFailed {
		t.Fatalf("updates: %+v", u)
	}
	close(block)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-following
		_ = ed.conn.Cancel(ctx, acp.CancelNotification{SessionId: sid})
	}()
	r, err := ed.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("q")}})
	cancel()
	mu.Lock()
	defer mu.Unlock()
	if err != nil || r.StopReason != acp.StopReasonCancelled || len(cancelled) != 1 || cancelled[0] != "run-9" {
		t.Fatalf("a cancelled turn: %+v %v, cancels %v", r, err, cancelled)
	}
}

// An answer chosen in the editor that the run refuses ends the turn with the
// refusal and cancels the run, which nothing would answer again.
func TestDecisionRefusedCancelsTheRun(t *testing.T) {
	c := &fakeCaller{answer: func(_ context.Context, env *e2a.Envelope) []*e2a.Response {
		switch env.Method {
		case "capability.run":
			return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-2", "status": "waiting", "pending": map[string]any{
				"task": "judge", "prompt": "Ship?", "expected_output": map[string]any{
					"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}})}
		case "capability.decide":
			return []*e2a.Response{e2a.ErrorFrame("conflict", "run run-2 was answered already", nil)}
		}
		return []*e2a.Response{e2a.CompleteFrame(map[string]any{"run_id": "run-2", "status": "cancelled"})}
	}}
	ed, sid := serveTo(t, "cap:a/b", c)
	ed.Choose("no")
	_, err := ed.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("{}")}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32009 || !strings.Contains(re.Message, "answered already") {
		t.Fatalf("%v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var methods []string
	for _, e := range c.calls {
		methods = append(methods, e.Method)
	}
	if got := strings.Join(methods, " "); got != "capability.run capability.decide capability.cancel" || c.calls[1].Params["answer"].(map[string]any)["ok"] != false {
		t.Fatalf("calls: %s %v", got, c.calls[1].Params)
	}
}
