package gateway

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/sluicehq/sluice/protocol/session"
)

// maxWSFrame bounds a WebSocket frame: above it the library closes the
// connection. Frames above the session's line limit but under this one get
// an error and the session goes on.
const maxWSFrame = 16 << 20

// sessionWS serves GET /api/v1/session: an A2E session over WebSocket, one
// message per text frame (a frame holding several lines is read as several
// messages; each message sent is one frame ending in a newline, so line-based
// readers work too). The key comes in the handshake, as on every transport.
func (s *Server) sessionWS(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // a session outlives the HTTP timeouts
	_ = rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	c.SetReadLimit(maxWSFrame)
	ctx, cancel := context.WithCancel(s.sessionsCtx)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel)
	defer stop()
	s.ServeSession(ctx, &wsConn{c: c, ctx: ctx, max: s.cfg.Session.withDefaults().MaxLineBytes}, "websocket")
}

// wsConn is MsgConn over a WebSocket.
type wsConn struct {
	c       *websocket.Conn
	ctx     context.Context
	max     int
	mu      sync.Mutex
	pending [][]byte
}

func (c *wsConn) ReadLine() ([]byte, error) {
	for len(c.pending) == 0 {
		_, data, err := c.c.Read(c.ctx)
		if err != nil {
			return nil, err
		}
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			l = bytes.TrimRight(l, "\r")
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			if len(l) > c.max {
				return nil, &session.Error{Code: session.CodeInvalidMessage,
					Message: "the message is over the " + itoa(c.max) + "-byte line limit"}
			}
			c.pending = append(c.pending, l)
		}
	}
	l := c.pending[0]
	c.pending = c.pending[1:]
	return l, nil
}

func (c *wsConn) WriteLine(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	return c.c.Write(ctx, websocket.MessageText, append(b, '\n'))
}

func (c *wsConn) Close() error { return c.c.Close(websocket.StatusNormalClosure, "") }

// ServeSessions serves one session per connection accepted on ln (the TCP
// transport of `sluice serve --session-addr`) until ctx ends.
func (s *Server) ServeSessions(ctx context.Context, ln net.Listener) error {
	go func() { <-ctx.Done(); _ = ln.Close() }()
	max := s.cfg.Session.withDefaults().MaxLineBytes
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go s.ServeSession(ctx, NewStreamConn(conn, conn, conn, max), "tcp")
	}
}
