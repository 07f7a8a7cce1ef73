package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sluicehq/sluice/internal/gateway"
)

// The ingress drivers of TestIngress: each makes a row's call on its wire
// and returns the exchange, the transcript for the golden and the verdict
// for the code check. A driver runs beside the test's goroutine (a row may
// cancel its call while it runs), so it returns errors and never touches
// testing.T.

// callSpec is a row's call on each wire.
type callSpec struct {
	httpMethod, path string         // REST
	body             map[string]any // REST, JSON
	method           string         // E2A envelope
	params           map[string]any
	tool             string // session tool/call/req
	args             map[string]any
	// callsBefore is how many of the same call a session makes, each
	// answered, before the one the row is about.
	callsBefore int
}

func withCallsBefore(c callSpec, n int) callSpec { c.callsBefore = n; return c }

// executeCall is workflow.execute with params on every wire (sessions call
// the tool of that name with the params as arguments).
func executeCall(params map[string]any) callSpec {
	return callSpec{httpMethod: "POST", path: "/api/v1/workflows/execute", body: params,
		method: "workflow.execute", params: params, tool: "workflow.execute", args: params}
}

// ingressEnv is one ingress's server.
type ingressEnv struct {
	t   *testing.T
	s   *testServer
	tcp string // the TCP session listener's address
}

func newIngressEnv(t *testing.T) *ingressEnv {
	s := newServer(t)
	return &ingressEnv{t: t, s: s, tcp: serveTCP(t, s)}
}

// exchange is what a driver saw.
type exchange struct {
	transcript string
	verdict    verdict
}

// driver makes call as key. It calls underway once the call is under way:
// once it is sent, or, on a wire that streams the execution's progress, once
// its operation has started (the frames before it are then always the same).
type driver func(e *ingressEnv, call callSpec, key string, underway func()) (exchange, error)

// ingress is one wire sluice is called through. wire is the family whose
// codes it shows (verdict.matches).
type ingress struct {
	name, wire string
	do         driver
}

var ingresses = []ingress{
	{name: "rest", wire: "rest", do: restDriver},
	{name: "e2a", wire: "e2a", do: e2aDriver},
	{name: "session-stdio", wire: "session", do: sessionDriver(dialStdio)},
	{name: "session-tcp", wire: "session", do: sessionDriver(dialTCPSession)},
	{name: "session-ws", wire: "session", do: sessionDriver(dialWSSession)},
	{name: "sse", wire: "sse", do: sseDriver},
	{name: "mcp-http", wire: "mcp", do: mcpHTTPDriver},
	{name: "mcp-stdio", wire: "mcp", do: mcpStdioDriver},
}

// run makes c's call through ing with a new account.
func (ing ingress) run(e *ingressEnv, c ingressCase) exchange {
	e.t.Helper()
	call, during := c.call, c.during
	if c.server != nil {
		s := newServer(e.t, c.server...)
		e = &ingressEnv{t: e.t, s: s, tcp: serveTCP(e.t, s)}
	}
	_, key := e.s.account(c.perms, c.limits)
	if c.unknownKey {
		key = "slk_aaaaaaaaaaaaa_" + strings.Repeat("a", 59)
	}
	if ing.wire == "sse" {
		if c.sse == nil {
			e.t.Fatalf("row %s has no call on the event stream, and no notOn reason for sse", c.name)
		}
		call, during = callSpec{httpMethod: "GET", path: c.sse(e, key)}, nil
	} else if c.before != nil {
		c.before(e, key)
	}
	underway := make(chan struct{})
	var once sync.Once
	type result struct {
		x   exchange
		err error
	}
	done := make(chan result, 1)
	go func() {
		x, err := ing.do(e, call, key, func() { once.Do(func() { close(underway) }) })
		once.Do(func() { close(underway) })
		done <- result{x, err}
	}()
	if during != nil {
		<-underway
		during(e, key)
	}
	select {
	case r := <-done:
		if r.err != nil {
			e.t.Fatalf("%s: %v", ing.name, r.err)
		}
		return r.x
	case <-time.After(2 * hungAfter):
		e.t.Fatalf("%s: no answer", ing.name)
	}
	return exchange{}
}

// ingressHTTP is the client of the HTTP wires; its timeout stops a hung test.
var ingressHTTP = &http.Client{Timeout: hungAfter}

// ingressRequest makes an HTTP request as key with body as JSON (none when nil).
func ingressRequest(e *ingressEnv, method, path, key string, body map[string]any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.s.http.URL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return ingressHTTP.Do(req)
}

// transcript collects a golden section.
type transcript struct{ b strings.Builder }

func (t *transcript) line(format string, args ...any) {
	t.b.WriteString(normaliseString(fmt.Sprintf(format, args...)) + "\n")
}

// headers writes the headers a caller acts on (volatile ones normalised).
func (t *transcript) headers(h http.Header) {
	for _, name := range []string{"Content-Type", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if v := h.Get(name); v != "" {
			t.line("< %s: %s", name, normaliseHeader(name, v))
		}
	}
}

func (t *transcript) json(prefix string, v any) { t.line("%s%s", prefix, prettyNormalised(v)) }

func restDriver(e *ingressEnv, call callSpec, key string, underway func()) (exchange, error) {
	var tr transcript
	tr.line("> %s %s", call.httpMethod, call.path)
	if call.body != nil {
		tr.json("> ", call.body)
	}
	underway()
	resp, err := ingressRequest(e, call.httpMethod, call.path, key, call.body)
	if err != nil {
		return exchange{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return exchange{}, err
	}
	v := jsonVerdict(resp.StatusCode, raw)
	tr.line("< HTTP %d", resp.StatusCode)
	tr.headers(resp.Header)
	tr.json("", bodyOf(raw))
	return exchange{tr.b.String(), v}, nil
}

// jsonVerdict reads a REST JSON answer.
func jsonVerdict(status int, raw []byte) verdict {
	v := verdict{httpStatus: status, final: "json"}
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	if eo, ok := body["error"].(map[string]any); ok {
		v.errType, _ = eo["type"].(string)
	}
	if status/100 == 2 {
		v.exec = executionOf(body)
	}
	return v
}

// executionOf is body when it is an execution response, else nil.
func executionOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	if _, ok := m["execution_id"].(string); !ok {
		return nil
	}
	if _, ok := m["status"].(string); !ok {
		return nil
	}
	return m
}

func e2aDriver(e *ingressEnv, call callSpec, key string, underway func()) (exchange, error) {
	env := map[string]any{"request_id": "req-ingress", "method": call.method, "params": call.params}
	var tr transcript
	tr.line("> POST /api/v1/e2a")
	tr.json("> ", env)
	resp, err := ingressRequest(e, "POST", "/api/v1/e2a", key, env)
	if err != nil {
		return exchange{}, err
	}
	defer resp.Body.Close()
	tr.line("< HTTP %d", resp.StatusCode)
	tr.headers(resp.Header)
	v := verdict{httpStatus: resp.StatusCode}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return exchange{}, fmt.Errorf("frame %q: %v", sc.Text(), err)
		}
		tr.json("", f)
		if operationStarted(f) {
			underway()
		}
		body, _ := f["body"].(map[string]any)
		v.final, _ = f["response_kind"].(string)
		v.code, _ = body["code"].(string)
		v.exec = executionOf(body["result"])
	}
	return exchange{tr.b.String(), v}, sc.Err()
}

// operationStarted says an E2A frame tells that the execution's operation
// started.
func operationStarted(f map[string]any) bool {
	body, _ := f["body"].(map[string]any)
	delta, _ := body["delta"].(map[string]any)
	return delta["kind"] == "started"
}

// Fixed message ids keep the session goldens stable.
const (
	sessionHandshakeID = "00000000000000000000000000000001"
	sessionCallID      = "00000000000000000000000000000002"
)

// sessionDriver drives a session over the transport dial opens: the
// handshake, then the row's tool call.
func sessionDriver(dial func(e *ingressEnv) (net.Conn, error)) driver {
	return func(e *ingressEnv, call callSpec, key string, underway func()) (exchange, error) {
		conn, err := dial(e)
		if err != nil {
			return exchange{}, err
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(hungAfter))
		br := bufio.NewReaderSize(conn, 1<<20)
		write := func(m map[string]any) error {
			m["a2e"], m["ts"] = "1.0", 1.5
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			_, err = conn.Write(append(b, '\n'))
			return err
		}
		recv := func() (map[string]any, error) {
			l, err := br.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			var m map[string]any
			return m, json.Unmarshal(l, &m)
		}
		if err := write(map[string]any{"type": "handshake/req", "id": sessionHandshakeID, "agent_id": "ingress-test",
			"agent_caps": []string{"tools"}, "auth_token": key}); err != nil {
			return exchange{}, err
		}
		hs, err := recv()
		if err != nil {
			return exchange{}, fmt.Errorf("handshake: %v", err)
		}
		if hs["ok"] != true {
			// A refused handshake is the row's answer (the key is not shown).
			var tr transcript
			tr.line("> handshake/req with the row's key")
			tr.json("< ", hs)
			reason, _ := hs["reason"].(string)
			return exchange{tr.b.String(), verdict{final: "handshake/resp", code: reason}}, nil
		}
		for i := range call.callsBefore {
			id := fmt.Sprintf("%032x", 0x100+i)
			if err := write(map[string]any{"type": "tool/call/req", "id": id, "tool_name": call.tool, "arguments": call.args}); err != nil {
				return exchange{}, err
			}
			if m, err := recv(); err != nil || m["req_id"] != id {
				return exchange{}, fmt.Errorf("call %d before the row's: %v %v", i, m, err)
			}
		}
		req := map[string]any{"type": "tool/call/req", "id": sessionCallID, "tool_name": call.tool, "arguments": call.args}
		var tr transcript
		if call.callsBefore > 0 {
			tr.line("(after %d answered call(s) of the same in this session)", call.callsBefore)
		}
		tr.json("> ", req)
		if err := write(req); err != nil {
			return exchange{}, err
		}
		underway()
		for {
			m, err := recv()
			if err != nil {
				return exchange{}, fmt.Errorf("after %q: %v", tr.b.String(), err)
			}
			tr.json("< ", m)
			if m["req_id"] != sessionCallID || (m["type"] != "tool/call/resp" && m["type"] != "error") {
				continue
			}
			v := verdict{final: m["type"].(string)}
			v.code, _ = m["code"].(string)
			if data, ok := m["data"].(map[string]any); ok {
				v.code, _ = data["error_code"].(string)
				v.success, _ = data["success"].(bool)
				v.exec = executionOf(data["data"])
			}
			return exchange{tr.b.String(), v}, nil
		}
	}
}

// dialStdio serves a session over a pipe, as `sluice session --stdio` does
// over its standard input and output.
func dialStdio(e *ingressEnv) (net.Conn, error) {
	server, client := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.s.app.Server.ServeSession(context.Background(), gateway.NewStreamConn(server, server, server, 0), "stdio")
	}()
	return &waitingConn{Conn: client, done: done}, nil
}

// waitingConn is a session's end that waits, on Close, for the session to end.
type waitingConn struct {
	net.Conn
	done chan struct{}
}

func (c *waitingConn) Close() error {
	err := c.Conn.Close()
	<-c.done
	return err
}

func dialTCPSession(e *ingressEnv) (net.Conn, error) { return net.Dial("tcp", e.tcp) }

func dialWSSession(e *ingressEnv) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hungAfter)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, e.s.wsURL(), nil)
	if err != nil {
		return nil, err
	}
	return websocket.NetConn(context.Background(), ws, websocket.MessageText), nil
}

func sseDriver(e *ingressEnv, call callSpec, key string, _ func()) (exchange, error) {
	var tr transcript
	tr.line("> GET %s", call.path)
	resp, err := ingressRequest(e, "GET", call.path, key, nil)
	if err != nil {
		return exchange{}, err
	}
	defer resp.Body.Close()
	tr.line("< HTTP %d", resp.StatusCode)
	tr.headers(resp.Header)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return exchange{}, err
		}
		tr.json("", bodyOf(raw))
		return exchange{tr.b.String(), jsonVerdict(resp.StatusCode, raw)}, nil
	}
	v := verdict{httpStatus: resp.StatusCode}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var id, event string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(line[6:]), &data); err != nil {
				return exchange{}, fmt.Errorf("event data %q: %v", line, err)
			}
			if id != "" {
				tr.line("< id: %s", id)
			}
			tr.line("< event: %s", event)
			tr.json("", data)
			switch event {
			case "frame":
				if body, _ := data["body"].(map[string]any); data["is_final"] == true {
					v.exec = executionOf(body["result"])
				}
			case "end", "error":
				v.final = "stream " + event
				v.code, _ = data["code"].(string)
				return exchange{tr.b.String(), v}, nil
			}
			id, event = "", ""
		}
	}
	if err := sc.Err(); err != nil {
		return exchange{}, fmt.Errorf("%v, after:\n%s", err, tr.b.String())
	}
	return exchange{}, errors.New("the event stream ended without an end or error event")
}
