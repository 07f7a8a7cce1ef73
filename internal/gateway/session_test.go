package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/session"
)

// rawSession is a peer that writes and reads raw lines of a session served
// in-process over a net.Pipe.
type rawSession struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
	done chan struct{}
	n    int
}

func openRaw(t *testing.T, s *testServer) *rawSession {
	t.Helper()
	server, client := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.app.Server.ServeSession(context.Background(), gateway.NewStreamConn(server, server, server, 0), "test")
	}()
	t.Cleanup(func() { client.Close(); <-done })
	return &rawSession{t: t, conn: client, br: bufio.NewReaderSize(client, 4<<20), done: done}
}

func (r *rawSession) id() string {
	r.n++
	return fmt.Sprintf("%032x", r.n)
}

// send writes a message with the base fields filled in; it returns its id.
func (r *rawSession) send(typ string, fields map[string]any) string {
	r.t.Helper()
	m := map[string]any{"a2e": "1.0", "type": typ, "id": r.id(), "ts": 1.5}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	r.line(string(b))
	return m["id"].(string)
}

func (r *rawSession) line(s string) {
	r.t.Helper()
	_ = r.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.conn.Write([]byte(s + "\n")); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// recv reads the next message.
func (r *rawSession) recv() map[string]any {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	l, err := r.br.ReadString('\n')
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(l), &m); err != nil {
		r.t.Fatalf("not JSON: %q", l)
	}
	return m
}

// closed reports whether the server closed the session.
func (r *rawSession) closed() bool {
	select {
	case <-r.done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

func (r *rawSession) handshake(key string) map[string]any {
	r.send("handshake/req", map[string]any{"agent_id": "tester", "agent_caps": []string{"streaming", "tools", "artifacts", "env", "tools", "tool"}, "auth_token": key})
	return r.recv()
}

func TestSessionHandshakeAndBaseMessages(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()

	// Anything before the handshake: an error, then the session ends.
	r := openRaw(t, s)
	r.send("ping", nil)
	if m := r.recv(); m["type"] != "error" || m["code"] != "invalid_message" || !r.closed() {
		t.Fatalf("message before handshake: %v", m)
	}
	// A bad key.
	r = openRaw(t, s)
	if m := r.handshake("slk_nope"); m["ok"] != false || m["reason"] != "auth_failed" || !r.closed() {
		t.Fatalf("bad key: %v", m)
	}
	// Another major version.
	r = openRaw(t, s)
	r.line(`{"a2e":"2.0","type":"handshake/req","id":"` + r.id() + `","ts":1,"auth_token":"x"}`)
	if m := r.recv(); m["ok"] != false || m["reason"] != "version_mismatch" {
		t.Fatalf("version: %v", m)
	}

	r = openRaw(t, s)
	hs := r.handshake(key)
	// accepted_caps: only the SDK's capability names, each once; the SDK's
	// default "streaming" and "artifacts" (and sluice's old "tool") left out.
	caps, _ := json.Marshal(hs["accepted_caps"])
	if hs["ok"] != true || hs["session_id"] == "" || hs["max_parallel"] != float64(16) ||
		string(caps) != `[{"capability":"tools","enabled":true},{"capability":"env","enabled":false}]` {
		t.Fatalf("handshake: %v (accepted_caps %s)", hs, caps)
	}
	if strings.Contains(fmt.Sprint(s.logs.String()), key) {
		t.Fatal("the handshake's key is in a log line")
	}
	id := r.send("ping", nil)
	if m := r.recv(); m["type"] != "pong" || m["req_id"] != id {
		t.Fatalf("ping: %v", m)
	}
	// Bad lines get errors and the session goes on.
	r.line("this is not json")
	if m := r.recv(); m["code"] != "parse_error" {
		t.Fatalf("not JSON: %v", m)
	}
	id = r.send("tool/call/req", map[string]any{"arguments": map[string]any{}})
	if m := r.recv(); m["code"] != "schema_violation" || m["req_id"] != id || !strings.Contains(m["message"].(string), "tool_name") {
		t.Fatalf("missing tool_name: %v", m)
	}
	id = r.send("weather/forecast/req", nil)
	if m := r.recv(); m["code"] != "unknown_type" || m["req_id"] != id {
		t.Fatalf("unknown type: %v", m)
	}
	r.line(`{"a2e":"1.0","type":"ping","id":"` + strings.Repeat("a", 32) + `","ts":1,"pad":"` + strings.Repeat("x", 2<<20) + `"}`)
	if m := r.recv(); m["code"] != "invalid_message" {
		t.Fatalf("oversized line: %v", m)
	}
	id = r.send("ping", nil)
	if m := r.recv(); m["type"] != "pong" || m["req_id"] != id {
		t.Fatalf("after the long line: %v", m)
	}
	id = r.send("handshake/req", map[string]any{"auth_token": key})
	if m := r.recv(); m["code"] != "invalid_message" || m["req_id"] != id {
		t.Fatalf("second handshake: %v", m)
	}
}

func TestSessionToolsAndPermissions(t *testing.T) {
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"FilterData", "Wait"}}, nil)
	r := openRaw(t, s)
	r.handshake(key)

	id := r.send("tool/list/req", map[string]any{"query": "wait"})
	m := r.recv()
	if m["type"] != "tool/list/resp" || m["req_id"] != id || len(m["tools"].([]any)) != 1 {
		t.Fatalf("list: %v", m)
	}
	id = r.send("tool/call/req", map[string]any{"tool_name": "op.FilterData", "arguments": map[string]any{
		"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1}},
		"input": map[string]any{"xs": []any{map[string]any{"v": 0}, map[string]any{"v": 2}}}}})
	m = r.recv()
	data, _ := m["data"].(map[string]any)
	if m["type"] != "tool/call/resp" || m["req_id"] != id || data["success"] != true || fmt.Sprint(data["data"]) != "[map[v:2]]" {
		t.Fatalf("call: %v", m)
	}
	id = r.send("tool/call/req", map[string]any{"tool_name": "op.ApiCall", "arguments": map[string]any{}})
	if m := r.recv(); m["code"] != "tool_denied" || m["req_id"] != id {
		t.Fatalf("denied: %v", m)
	}
	id = r.send("tool/call/req", map[string]any{"tool_name": "op.Teleport"})
	if m := r.recv(); m["code"] != "unknown_tool" || m["req_id"] != id {
		t.Fatalf("unknown: %v", m)
	}
	// A tool that ran and failed answers tool/call/resp with success false.
	id = r.send("tool/call/req", map[string]any{"tool_name": "op.FilterData", "arguments": map[string]any{"inputPath": "/input/missing", "conditions": []any{}}})
	m = r.recv()
	data, _ = m["data"].(map[string]any)
	if m["type"] != "tool/call/resp" || data["success"] != false || data["error_code"] == "" {
		t.Fatalf("failed tool: %v", m)
	}
	// Streaming: tool/event messages with seq from 0, then the answer.
	doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
	id = r.send("tool/call/req", map[string]any{"tool_name": "workflow.execute", "arguments": map[string]any{"workflow": doc}, "streaming": true})
	seq := 0
	for {
		m = r.recv()
		if m["type"] == "tool/call/resp" {
			break
		}
		if m["type"] != "tool/event" || m["req_id"] != id || m["seq"] != float64(seq) {
			t.Fatalf("event %d: %v", seq, m)
		}
		seq++
	}
	if seq < 3 || m["data"].(map[string]any)["success"] != true {
		t.Fatalf("streaming: %d events, %v", seq, m)
	}
}

func TestSessionLimitsAndShutdown(t *testing.T) {
	s := newServer(t, withSession(gateway.SessionConfig{MaxParallel: 1}))
	_, key := s.anyAccount()
	r := openRaw(t, s)
	r.handshake(key)
	slow := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":400}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
	first := r.send("tool/call/req", map[string]any{"tool_name": "workflow.execute", "arguments": map[string]any{"workflow": slow}})
	second := r.send("tool/call/req", map[string]any{"tool_name": "workflow.validate", "arguments": map[string]any{"workflow": slow}})
	m := r.recv()
	if m["code"] != "rate_limited" || m["retryable"] != true || m["req_id"] != second {
		t.Fatalf("over max_parallel: %v", m)
	}
	// Shutdown while the first call runs: it finishes, then the answer, then close.
	shut := r.send("shutdown", map[string]any{"timeout": 5})
	m = r.recv()
	if m["type"] != "tool/call/resp" || m["req_id"] != first || m["data"].(map[string]any)["success"] != true {
		t.Fatalf("the call in flight: %v", m)
	}
	m = r.recv()
	if m["type"] != "shutdown" || m["req_id"] != shut || !r.closed() {
		t.Fatalf("shutdown: %v", m)
	}
}

// Concurrent calls through the client over WebSocket, each with its own seq.
func TestSessionOverWebSocketConcurrentCalls(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.http.URL, "http")+"/api/v1/session", nil)
	if err != nil {
		t.Fatal(err)
	}
	nc := websocket.NetConn(ctx, ws, websocket.MessageText)
	var mu sync.Mutex
	seqs := map[string][]int{}
	c, err := session.Connect(ctx, nc, nc, session.ClientOptions{AuthToken: key, Caps: []string{"tools"}, OnEvent: func(m session.Message) {
		if ev, ok := m.(*session.ToolEvent); ok {
			mu.Lock()
			seqs[ev.ReqID] = append(seqs[ev.ReqID], ev.Seq)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc := jsonl(`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":5}}}`,
				`{"type":"operationUpdate","operationId":"b","operation":{"Wait":{"duration":5}}}`,
				fmt.Sprintf(`{"type":"beginExecution","executionId":"ws-%d-%s","operationOrder":["a","b"]}`, i, uniqueID()))
			args, _ := json.Marshal(map[string]any{"workflow": doc})
			resp, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: "workflow.execute", Arguments: args, Streaming: true})
			if err == nil && !resp.Data.Success {
				err = fmt.Errorf("call %d failed: %s", i, resp.Data.Error)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seqs) != 8 {
		t.Fatalf("events for %d calls, want 8", len(seqs))
	}
	for id, ss := range seqs {
		for i, v := range ss {
			if v != i {
				t.Fatalf("call %s: seqs %v", id, ss)
			}
		}
	}
}

// The TCP transport: one session per connection.
func TestSessionOverTCP(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	ctx := context.Background()
	conn := dialTCP(t, serveTCP(t, s))
	c, err := session.Connect(ctx, conn, conn, session.ClientOptions{AuthToken: key})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.ListTools(ctx, &session.ToolListReq{})
	if err != nil || len(list.Tools) < 5 {
		t.Fatalf("list over TCP: %v %v", err, list)
	}
	if _, err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// The session limits of the config file are the ones announced and enforced.
func TestSessionLimitsFromConfig(t *testing.T) {
	s := newServer(t, func(c *config.Config) {
		c.Session.MaxParallel = 3
		c.Session.CallsPerSecond = 7
		c.Session.MaxLineBytes = 4096
	})
	_, key := s.anyAccount()
	r := openRaw(t, s)
	hs := r.handshake(key)
	limits, _ := hs["limits"].(map[string]any)
	if hs["max_parallel"] != float64(3) ||
		limits["calls_per_second"] != float64(7) || limits["max_line_bytes"] != float64(4096) {
		t.Fatalf("handshake limits: %v", hs)
	}
	// A line over the limit is refused and the session goes on.
	r.line(`{"a2e":"1.0","type":"ping","id":"` + r.id() + `","ts":1,"pad":"` + strings.Repeat("x", 5000) + `"}`)
	if m := r.recv(); m["type"] != "error" || r.closed() {
		t.Fatalf("oversized line: %v", m)
	}
	id := r.send("ping", nil)
	if m := r.recv(); m["type"] != "pong" || m["req_id"] != id {
		t.Fatalf("after an oversized line: %v", m)
	}
}

// A peer that waits for each answer before its next call is never refused
// for calls in flight, however fast the answers come (the slot is free before
// the answer is sent).
func TestSessionSequentialCallsNeverOverMaxParallel(t *testing.T) {
	s := newServer(t, withSession(gateway.SessionConfig{MaxParallel: 1, CallsPerSecond: 1_000_000}))
	_, key := s.account(map[string]any{"operations": []string{"Wait"}},
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	r := openRaw(t, s)
	r.handshake(key)
	doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"seq","operationOrder":["w"]}`)
	for i := range 300 {
		id := r.send("tool/call/req", map[string]any{"tool_name": "workflow.validate", "arguments": map[string]any{"workflow": doc}})
		if m := r.recv(); m["type"] != "tool/call/resp" || m["req_id"] != id {
			t.Fatalf("call %d: %v", i, m)
		}
	}
}
