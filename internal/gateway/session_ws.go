package gateway

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/session"
)

// maxWSFrame bounds an authenticated session's WebSocket frame: above it the
// library closes the connection. A frame is read as a stream of lines, never
// held whole: a line above the session's line limit is skipped with an error
// and the session goes on, so memory is bounded by the line limit, not by
// this. Before the handshake is accepted a frame may be at most
// session.MaxHandshakeBytes.
const maxWSFrame = 16 << 20

// sessionWS serves GET /api/v1/session: an A2E session over WebSocket, one
// message per text frame (a frame holding several lines is read as several
// messages; each message sent is one frame ending in a newline, so line-based
// readers work too). The key comes in the handshake, as on every transport.
func (s *Server) sessionWS(w http.ResponseWriter, r *http.Request) {
	release, refused := s.preAuth.take(r.RemoteAddr)
	if refused != "" {
		s.metrics.sessionRefused("websocket", refused)
		refuseUpgrade(w, refused)
		return
	}
	defer release()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // a session outlives the HTTP timeouts
	_ = rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	ctx, cancel := context.WithCancel(s.sessionsCtx)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel)
	defer stop()
	s.serveSession(ctx, newWSConn(ctx, c, s.cfg.Session.withDefaults().MaxLineBytes), "websocket", release)
}

// refuseUpgrade answers a WebSocket request over a bound of unauthenticated
// connections before upgrading it: 429 when its address has too many, 503
// when the server has.
func refuseUpgrade(w http.ResponseWriter, refused string) {
	w.Header().Set("Retry-After", "1")
	if refused == refusedAddressBound {
		writeJSON(w, http.StatusTooManyRequests, errorObject(fault.New(fault.RateLimited,
			"too many session connections from this address are still in their handshake").Object()))
		return
	}
	writeJSON(w, http.StatusServiceUnavailable, errorObject(fault.New(fault.Unavailable,
		"too many session connections are still in their handshake").Object()))
}

// wsConn is MsgConn over a WebSocket. Each frame is read as a stream through
// one session.Reader, line by line: a frame is never held whole.
type wsConn struct {
	c     *websocket.Conn
	ctx   context.Context
	max   int
	frame frameSource
	lines *session.Reader
	mu    sync.Mutex
}

// newWSConn reads c under the handshake's bounds until Authenticated.
func newWSConn(ctx context.Context, c *websocket.Conn, maxLine int) *wsConn {
	handshake := min(maxLine, session.MaxHandshakeBytes)
	c.SetReadLimit(int64(handshake))
	wc := &wsConn{c: c, ctx: ctx, max: maxLine}
	wc.lines = session.NewReader(&wc.frame, nil, session.Limits{MaxLineBytes: handshake})
	return wc
}

// frameSource is the frame being read; at its end it reports io.EOF until
// the next frame is set (bufio, under session.Reader, does not keep EOF).
type frameSource struct{ r io.Reader }

func (f *frameSource) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	n, err := f.r.Read(p)
	if errors.Is(err, io.EOF) {
		f.r = nil
	}
	return n, err
}

func (c *wsConn) ReadLine() ([]byte, error) {
	for {
		if c.frame.r == nil {
			_, r, err := c.c.Reader(c.ctx)
			if err != nil {
				return nil, err
			}
			c.frame.r = r
		}
		l, err := c.lines.ReadLine()
		if errors.Is(err, io.EOF) {
			continue // the frame's end: the next frame
		}
		return l, err
	}
}

func (c *wsConn) Authenticated() {
	c.c.SetReadLimit(maxWSFrame)
	c.lines.SetMaxLineBytes(c.max)
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
// transport of `sluice serve --session-addr`) until ctx ends. A connection
// over a bound of unauthenticated ones gets an error message and is closed.
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
		release, refused := s.preAuth.take(conn.RemoteAddr().String())
		if refused != "" {
			s.metrics.sessionRefused("tcp", refused)
			go s.refuseConn(conn, refused)
			continue
		}
		go func() {
			defer release()
			s.serveSession(ctx, NewStreamConn(conn, conn, conn, max), "tcp", release)
		}()
	}
}

// refuseConn tells a TCP peer over a bound why it is refused, then closes.
func (s *Server) refuseConn(conn net.Conn, refused string) {
	defer conn.Close()
	msg := "too many session connections are still in their handshake"
	if refused == refusedAddressBound {
		msg = "too many session connections from this address are still in their handshake"
	}
	m := &session.ErrorMessage{Code: session.CodeRateLimited, Retryable: true, Message: msg}
	session.Stamper{Now: s.clock.Now}.Stamp(m)
	b, err := session.Marshal(m)
	if err != nil {
		return
	}
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = conn.Write(append(b, '\n'))
}
