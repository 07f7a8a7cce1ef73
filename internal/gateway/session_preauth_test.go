package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/session"
)

func (s *testServer) wsURL() string {
	return "ws" + strings.TrimPrefix(s.http.URL, "http") + "/api/v1/session"
}

// dialWS opens a WebSocket session; it fails the test unless it is upgraded.
func dialWS(t *testing.T, s *testServer) *websocket.Conn {
	t.Helper()
	ws, resp, err := websocket.Dial(context.Background(), s.wsURL(), nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// dialStatus is the HTTP status of a WebSocket dial that is refused (0: upgraded).
func dialStatus(t *testing.T, s *testServer) (int, *websocket.Conn) {
	t.Helper()
	ws, resp, err := websocket.Dial(context.Background(), s.wsURL(), nil)
	if err == nil {
		t.Cleanup(func() { ws.CloseNow() })
		return 0, ws
	}
	if resp == nil {
		t.Fatalf("dial: %v", err)
	}
	return resp.StatusCode, nil
}

func handshakeLine(key string) []byte {
	b, _ := json.Marshal(map[string]any{"a2e": "1.0", "type": "handshake/req", "id": "00000000000000000000000000000001",
		"ts": 1.5, "agent_id": "tester", "agent_caps": []string{"tools"}, "auth_token": key})
	return append(b, '\n')
}

// readMsg reads the next message of a WebSocket session.
func readMsg(t *testing.T, ws *websocket.Conn) (map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, b, err := ws.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %q", b)
	}
	return m, nil
}

// serveTCP serves s's sessions over TCP on a random loopback port until
// the test ends; it returns the address.
func serveTCP(t *testing.T, s *testServer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = s.app.Server.ServeSessions(ctx, ln) }()
	return ln.Addr().String()
}

func dialTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Before its handshake a WebSocket peer may send one frame of at most
// session.MaxHandshakeBytes: a larger one closes the connection with 1009
// (message too big) after at most that many bytes are read, not the whole
// frame (16 MiB were allowed). After the handshake, frames up to the line
// limit are taken, and a longer line is refused with the session going on.
func TestWSFrameBeforeHandshakeIsBounded(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	for _, size := range []int{session.MaxHandshakeBytes + 1, 64 << 10, 1 << 20} {
		ws := dialWS(t, s)
		frame := append([]byte(`{"a2e":"1.0","type":"handshake/req","pad":"`), strings.Repeat("x", size)...)
		go func() { _ = ws.Write(context.Background(), websocket.MessageText, frame) }()
		_, err := readMsg(t, ws)
		if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
			t.Fatalf("a %d-byte frame before the handshake: %v, want close 1009", size, err)
		}
	}

	ws := dialWS(t, s)
	ctx := context.Background()
	if err := ws.Write(ctx, websocket.MessageText, handshakeLine(key)); err != nil {
		t.Fatal(err)
	}
	if m, err := readMsg(t, ws); err != nil || m["ok"] != true {
		t.Fatalf("handshake: %v %v", m, err)
	}
	// A 256 KiB message: under the session's 1 MiB line limit.
	list := `{"a2e":"1.0","type":"tool/list/req","id":"00000000000000000000000000000002","ts":1.5,"query":"` + strings.Repeat("q", 256<<10) + `"}` + "\n"
	if err := ws.Write(ctx, websocket.MessageText, []byte(list)); err != nil {
		t.Fatal(err)
	}
	if m, err := readMsg(t, ws); err != nil || m["type"] != "tool/list/resp" {
		t.Fatalf("a 256 KiB message after the handshake: %v %v", m, err)
	}
	// A 2 MiB line is over the line limit: an error, and the session goes on.
	long := `{"a2e":"1.0","type":"ping","id":"00000000000000000000000000000003","ts":1.5,"pad":"` + strings.Repeat("p", 2<<20) + `"}` + "\n"
	if err := ws.Write(ctx, websocket.MessageText, []byte(long)); err != nil {
		t.Fatal(err)
	}
	if m, err := readMsg(t, ws); err != nil || m["type"] != "error" || m["code"] != "invalid_message" {
		t.Fatalf("a 2 MiB line: %v %v", m, err)
	}
	ping := `{"a2e":"1.0","type":"ping","id":"00000000000000000000000000000004","ts":1.5}` + "\n"
	if err := ws.Write(ctx, websocket.MessageText, []byte(ping)); err != nil {
		t.Fatal(err)
	}
	if m, err := readMsg(t, ws); err != nil || m["type"] != "pong" {
		t.Fatalf("after a long line: %v %v", m, err)
	}
}

// The handshake of a TCP session is read under the same bound.
func TestTCPLineBeforeHandshakeIsBounded(t *testing.T) {
	conn := dialTCP(t, serveTCP(t, newServer(t)))
	go func() {
		_, _ = conn.Write([]byte(`{"a2e":"1.0","type":"handshake/req","pad":"` + strings.Repeat("x", 64<<10) + "\"}\n"))
	}()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	l, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(l, `"invalid_message"`) || !strings.Contains(l, "8192-byte limit") {
		t.Fatalf("a 64 KiB line before the handshake: %q %v", l, err)
	}
}

// A WebSocket session that sends nothing is closed at the handshake
// timeout, as a TCP one is.
func TestWSHandshakeDeadline(t *testing.T) {
	s := newServer(t, withSession(gateway.SessionConfig{HandshakeTimeout: 200 * time.Millisecond}))
	ws := dialWS(t, s)
	m, err := readMsg(t, ws)
	if err != nil || m["type"] != "error" || m["code"] != "timeout" {
		t.Fatalf("an idle connection: %v %v", m, err)
	}
	if _, err := readMsg(t, ws); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the timeout: %v", err)
	}
}

// Connections still in their handshake are bounded per address (429) and
// per server (503); a slot is free again once a handshake is answered.
func TestUnauthenticatedSessionBounds(t *testing.T) {
	t.Run("per address", func(t *testing.T) {
		s := newServer(t, withSession(gateway.SessionConfig{MaxUnauthenticatedPerAddress: 2}))
		_, key := s.anyAccount()
		first, _ := dialWS(t, s), dialWS(t, s)
		if st, _ := dialStatus(t, s); st != http.StatusTooManyRequests {
			t.Fatalf("the third unauthenticated connection: status %d, want 429", st)
		}
		if err := first.Write(context.Background(), websocket.MessageText, handshakeLine(key)); err != nil {
			t.Fatal(err)
		}
		if m, err := readMsg(t, first); err != nil || m["ok"] != true {
			t.Fatalf("handshake: %v %v", m, err)
		}
		waitFor(t, 10*time.Second, "a slot freed by a handshake", func() bool {
			st, _ := dialStatus(t, s)
			return st == 0
		})
		m := s.call("GET", "/metrics", "", nil).want(t, 200)
		if !strings.Contains(string(m.raw), `sluice_session_refusals_total{reason="unauthenticated_address",transport="websocket"}`) {
			t.Fatalf("the refusal is not counted:\n%s", m.raw)
		}
	})
	t.Run("per server", func(t *testing.T) {
		s := newServer(t, withSession(gateway.SessionConfig{MaxUnauthenticated: 1}))
		dialWS(t, s)
		if st, _ := dialStatus(t, s); st != http.StatusServiceUnavailable {
			t.Fatalf("the second unauthenticated connection: status %d, want 503", st)
		}
	})
	t.Run("tcp", func(t *testing.T) {
		addr := serveTCP(t, newServer(t, withSession(gateway.SessionConfig{MaxUnauthenticatedPerAddress: 1})))
		dialTCP(t, addr)
		// The held connection takes its slot when it is accepted: a second
		// one is refused once the first is (the accept loop is in order).
		second := dialTCP(t, addr)
		_ = second.SetReadDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(second)
		l, err := br.ReadString('\n')
		if err != nil || !strings.Contains(l, `"rate_limited"`) || !strings.Contains(l, "this address") {
			t.Fatalf("the second unauthenticated TCP connection: %q %v", l, err)
		}
		var ne net.Error
		if _, err := br.ReadString('\n'); err == nil || errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("not closed: %v", err)
		}
	})
}
