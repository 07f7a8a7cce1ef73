package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
)

// pipeSession serves a session whose input the test can end (as stdin ends).
type pipeSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan struct{}
}

func openPipe(t *testing.T, s *testServer) *pipeSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer outW.Close()
		s.app.Server.ServeSession(context.Background(), gateway.NewStreamConn(inR, outW, nil, 0), "stdio")
	}()
	t.Cleanup(func() { inW.Close(); go io.Copy(io.Discard, outR); <-done })
	return &pipeSession{t: t, in: inW, out: bufio.NewReader(outR), done: done}
}

func (p *pipeSession) send(typ, id string, fields map[string]any) {
	p.t.Helper()
	m := map[string]any{"a2e": "1.0", "type": typ, "id": id, "ts": 1.5}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipeSession) recv() map[string]any {
	p.t.Helper()
	l, err := p.out.ReadString('\n')
	if err != nil {
		p.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(l), &m); err != nil {
		p.t.Fatalf("not JSON: %q", l)
	}
	return m
}

// When a session's input ends, its calls in flight still get their answers
// (within the shutdown drain time); those the drain has to stop are
// answered and logged as cancellations, not as internal errors at ERROR.
func TestSessionEndOfInputDrainsThenCancels(t *testing.T) {
	srv := mcptest.NewServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the gateway's cleanup: its MCP connection holds a stream open
	s := newServer(t, withSession(gateway.SessionConfig{ShutdownTimeout: 300 * time.Millisecond}))
	_, key := s.account(map[string]any{"operations": []string{"Wait"}, "hosts": []string{"127.0.0.1"}, "mcp_servers": []string{"web"}}, nil)
	p := openPipe(t, s)
	p.send("handshake/req", strings.Repeat("0", 32), map[string]any{"agent_caps": []string{"tools", "mcp"}, "auth_token": key})
	if m := p.recv(); m["ok"] != true {
		t.Fatalf("handshake: %v", m)
	}
	p.send("mcp/server/register/req", strings.Repeat("3", 32), map[string]any{"name": "web", "url": hs.URL})
	if m := p.recv(); m["ok"] != true {
		t.Fatalf("register: %v", m)
	}
	short, long := strings.Repeat("1", 32), strings.Repeat("2", 32)
	p.send("tool/call/req", short, map[string]any{"tool_name": "op.Wait", "arguments": map[string]any{"duration": 50}})
	p.send("tool/call/req", long, map[string]any{"tool_name": "mcp.web.slow", "arguments": map[string]any{"ms": 20000}})
	p.in.Close()
	answers := map[string]map[string]any{}
	for range 2 {
		m := p.recv()
		answers[m["req_id"].(string)] = m
	}
	if data, _ := answers[short]["data"].(map[string]any); data["success"] != true {
		t.Errorf("the short call was not answered after the end of input: %v", answers[short])
	}
	m := answers[long]
	if m["type"] != "error" || m["code"] != "runtime_error" || !strings.Contains(fmtAny(m["message"]), "cancelled") {
		t.Errorf("the call the drain stopped: %v", m)
	}
	<-p.done
	if logs := s.logs.String(); strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("a cancellation was logged as an error:\n%s", logs)
	}
}

// A call's own timeout answers the session code timeout, whatever the tool:
// an MCP tool's answered runtime_error ("internal error").
func TestSessionCallTimeoutIsTimeout(t *testing.T) {
	srv := mcptest.NewServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the gateway's cleanup: its MCP connection holds a stream open
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"Wait"}, "hosts": []string{"127.0.0.1"}, "mcp_servers": []string{"web"}}, nil)
	r := openRaw(t, s)
	if hs := mcpHandshake(r, key); hs["ok"] != true {
		t.Fatalf("handshake: %v", hs)
	}
	r.send("mcp/server/register/req", map[string]any{"name": "web", "url": hs.URL})
	if m := r.recv(); m["ok"] != true {
		t.Fatalf("register: %v", m)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"mcp.web.slow", map[string]any{"ms": 20000}},
		{"op.Wait", map[string]any{"duration": 20000}},
	} {
		id := r.send("tool/call/req", map[string]any{"tool_name": c.tool, "arguments": c.args, "timeout": 0.2})
		m := r.recv()
		data, _ := m["data"].(map[string]any)
		if m["req_id"] != id || !(m["type"] == "error" && m["code"] == "timeout" || data["error_code"] == "timeout") {
			t.Errorf("%s past its own timeout: %v", c.tool, m)
		}
	}
}
