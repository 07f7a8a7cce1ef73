package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Errors of a Client.
var (
	// ErrClosed: the client was closed or the connection ended; a call in
	// flight then returns an error that wraps it (and the cause, if any).
	ErrClosed = errors.New("session: the session is closed")
	// ErrShuttingDown: a shutdown was sent or received; no new calls.
	ErrShuttingDown = errors.New("session: the session is shutting down")
)

// HandshakeError is a handshake the server refused (handshake/resp with ok
// false); Reason is the server's (ReasonAuthFailed, ReasonVersionMismatch).
type HandshakeError struct {
	Reason string
}

func (e *HandshakeError) Error() string { return "session: handshake refused: " + e.Reason }

// ClientOptions configure a Client. Zero values take the defaults.
type ClientOptions struct {
	AgentID   string
	AuthToken string   // a sluice API key; never logged
	Caps      []string // agent_caps; default: the capability of every plugin namespace of Registry (CapabilityOf)
	// Registry decodes what the server sends; default NewRegistry with MCP.
	Registry *Registry
	Limits   Limits
	Stamper  Stamper
	// OnEvent receives invoke/event and tool/event messages, and any message
	// that answers no call in flight, in the order they arrive. It runs on the
	// client's reading goroutine: it must not block for long, nor wait for a
	// call of the same client (which could never be answered).
	OnEvent func(Message)
	Logger  *slog.Logger
}

// Client is the agent's side of a session over a reader/writer pair (a TCP
// or WebSocket connection, a child process's pipes). Connect does the
// handshake; then calls may run concurrently, each matched to its answer by
// req_id. The client answers the server's pings and shutdown, and holds
// tool calls back to the handshake's max_parallel.
type Client struct {
	r    io.Reader
	w    io.Writer
	rd   *Reader
	wr   *Writer
	st   Stamper
	opts ClientOptions
	log  *slog.Logger
	t0   time.Time

	mu       sync.Mutex
	pending  map[string]chan Message
	stopErr  error // why the session ended
	draining bool

	hs       *HandshakeResp
	slots    chan struct{} // tool calls in flight, when max_parallel > 0
	quit     chan struct{} // closed when the session ends (Close or the connection)
	quitOnce sync.Once
	done     chan struct{} // closed when the reading goroutine returns
	// replies are the pongs and shutdown acknowledgements the reading
	// goroutine owes the server; another goroutine writes them, so that the
	// reader never waits on a write while the server waits on a read.
	replies   chan Message
	closeOnce sync.Once
	closeErr  error
}

// Connect starts a session over r and w: it sends handshake/req and waits for
// handshake/resp. A refused handshake is a *HandshakeError (and an `error`
// answer an *ErrorMessage); either way the client is closed. Close the client
// when done; Close closes r and w when they are io.Closers.
func Connect(ctx context.Context, r io.Reader, w io.Writer, opts ClientOptions) (*Client, error) {
	if opts.Registry == nil {
		opts.Registry = NewRegistry()
		if err := opts.Registry.Register(MCP); err != nil {
			return nil, err
		}
	}
	if opts.Caps == nil {
		for _, ns := range opts.Registry.Namespaces() {
			if c, ok := CapabilityOf(ns); ok {
				opts.Caps = append(opts.Caps, c)
			}
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		r: r, w: w, st: opts.Stamper, opts: opts, log: log,
		rd:      NewReader(r, opts.Registry, opts.Limits),
		wr:      NewWriter(w, opts.Stamper, opts.Limits),
		pending: map[string]chan Message{},
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		replies: make(chan Message, maxQueuedReplies),
	}
	c.t0 = c.now()
	go c.readLoop()
	go c.replyLoop()
	resp, err := Request[*HandshakeResp](ctx, c, &HandshakeReq{
		AgentID: opts.AgentID, AgentCaps: opts.Caps, AuthToken: opts.AuthToken,
	})
	if err == nil && !resp.OK {
		err = &HandshakeError{Reason: resp.Reason}
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	c.mu.Lock()
	c.hs = resp
	if resp.MaxParallel > 0 {
		c.slots = make(chan struct{}, resp.MaxParallel)
	}
	c.mu.Unlock()
	return c, nil
}

// Handshake is the server's handshake/resp.
func (c *Client) Handshake() *HandshakeResp {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hs
}

// Call sends req and returns the message that answers it (the first with
// req_id equal to req's id). An `error` answer is returned as the error (an
// *ErrorMessage). req is stamped first (Stamper.Stamp). A tool/call/req waits
// for one of max_parallel places first. ctx bounds the wait; an answer that
// comes later is dropped.
func (c *Client) Call(ctx context.Context, req Message) (Message, error) {
	if req.MessageType() == TypeToolCallReq {
		if slots := c.toolSlots(); slots != nil {
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-c.quit:
				return nil, c.err()
			}
		}
	}
	c.st.Stamp(req)
	id := req.Head().ID
	ch := make(chan Message, 1)
	c.mu.Lock()
	switch {
	case c.stopErr != nil:
		c.mu.Unlock()
		return nil, c.stopErr
	case c.draining:
		c.mu.Unlock()
		return nil, ErrShuttingDown
	case c.pending[id] != nil:
		c.mu.Unlock()
		return nil, fmt.Errorf("session: a call with id %s is already in flight", id)
	}
	c.pending[id] = ch
	if req.MessageType() == TypeShutdown {
		c.draining = true
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.wr.Write(req); err != nil {
		if werr := c.wr.broken(); werr != nil {
			// The connection is gone (the reading side may not know yet):
			// the session is over, as for a read that fails.
			c.stop(werr)
			return nil, c.err()
		}
		return nil, err // this message only (over the line limit, not encodable)
	}
	select {
	case m := <-ch:
		return answer(m)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.quit:
		select {
		case m := <-ch: // answered just before the end
			return answer(m)
		default:
			return nil, c.err()
		}
	}
}

func answer(m Message) (Message, error) {
	if em, ok := m.(*ErrorMessage); ok {
		return nil, em
	}
	return m, nil
}

// Request is Call for an answer of type T, e.g.
// Request[*MCPListResp](ctx, c, &MCPListReq{}). An answer of another type is
// an error.
func Request[T Message](ctx context.Context, c *Client, req Message) (T, error) {
	var zero T
	m, err := c.Call(ctx, req)
	if err != nil {
		return zero, err
	}
	t, ok := m.(T)
	if !ok {
		return zero, fmt.Errorf("session: %s was answered with %s", req.Head().Type, m.Head().Type)
	}
	return t, nil
}

// CallTool calls a tool; an empty SessionID takes the handshake's. A tool that
// ran and failed is a response with Data.Success false, not an error.
func (c *Client) CallTool(ctx context.Context, req *ToolCallReq) (*ToolCallResp, error) {
	if req.SessionID == "" {
		if hs := c.Handshake(); hs != nil {
			req.SessionID = hs.SessionID
		}
	}
	return Request[*ToolCallResp](ctx, c, req)
}

// ListTools lists the tools the session may call.
func (c *Client) ListTools(ctx context.Context, req *ToolListReq) (*ToolListResp, error) {
	return Request[*ToolListResp](ctx, c, req)
}

// Ping sends a ping and returns the pong.
func (c *Client) Ping(ctx context.Context) (*Pong, error) {
	return Request[*Pong](ctx, c, &Ping{})
}

// Shutdown asks the server to end the session: it takes no new calls, lets
// the ones in flight finish within timeout seconds (0: the server's default),
// answers, and closes. Shutdown waits for that answer or the end of the
// connection, then closes the client.
func (c *Client) Shutdown(ctx context.Context, timeout float64) error {
	_, err := Request[*Shutdown](ctx, c, &Shutdown{Timeout: timeout})
	if errors.Is(err, ErrClosed) {
		err = nil // the server closed without answering: the session is over all the same
	}
	return errors.Join(err, c.Close())
}

// Close ends the session at once: calls in flight return ErrClosed, and r and
// w are closed when they are io.Closers (Close then waits for the reading
// goroutine; with a reader it cannot close, that goroutine ends when the
// reader does).
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.stop(nil)
		var errs []error
		wc, wok := c.w.(io.Closer)
		if wok {
			errs = append(errs, c.closeQuietly(wc))
		}
		if rc, ok := c.r.(io.Closer); ok {
			if !wok || !same(rc, wc) {
				errs = append(errs, c.closeQuietly(rc))
			}
			<-c.done
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// closeQuietly closes cl; closing what the peer already closed is no error.
func (c *Client) closeQuietly(cl io.Closer) error {
	err := cl.Close()
	if errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// same reports whether two closers are one value (a connection given as both
// reader and writer), without panicking on incomparable types.
func same(a, b io.Closer) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// stop ends the session with cause (nil: closed by this side).
func (c *Client) stop(cause error) {
	c.mu.Lock()
	if c.stopErr == nil {
		if cause == nil || errors.Is(cause, io.EOF) {
			c.stopErr = ErrClosed
		} else {
			c.stopErr = fmt.Errorf("%w: %w", ErrClosed, cause)
		}
	}
	c.mu.Unlock()
	c.quitOnce.Do(func() { close(c.quit) })
}

func (c *Client) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopErr
}

func (c *Client) toolSlots() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slots
}

func (c *Client) now() time.Time {
	if c.st.Now != nil {
		return c.st.Now()
	}
	return time.Now()
}

// maxQueuedReplies bounds the replies waiting to be written; a server that
// sends more pings than that before it reads has the extra ones unanswered.
const maxQueuedReplies = 64

// reply queues m for replyLoop without waiting.
func (c *Client) reply(m Message) {
	select {
	case c.replies <- m:
	default:
		c.log.Warn("session: reply dropped: the server sends faster than it reads", "type", m.MessageType())
	}
}

// replyLoop writes the queued replies until the session ends.
func (c *Client) replyLoop() {
	for {
		select {
		case m := <-c.replies:
			if err := c.wr.Write(m); err != nil {
				c.log.Warn("session: reply not sent", "type", m.MessageType(), "error", err)
			}
		case <-c.quit:
			return
		case <-c.done:
			return
		}
	}
}

// readLoop reads until the connection ends, routing each message.
func (c *Client) readLoop() {
	defer close(c.done)
	for {
		m, err := c.rd.Next()
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				c.log.Warn("session: the server sent a line the client cannot read", "error", e.Error())
				continue
			}
			c.stop(err)
			return
		}
		c.route(m)
	}
}

func (c *Client) route(m Message) {
	switch m := m.(type) {
	case *Ping:
		c.reply(&Pong{Ref: Ref{ReqID: m.ID}, UptimeSeconds: c.now().Sub(c.t0).Seconds()})
		return
	case *Shutdown:
		if m.ReqID == "" { // the server is ending the session
			c.mu.Lock()
			c.draining = true
			c.mu.Unlock()
			c.reply(&Shutdown{ReqID: m.ID})
			return
		}
	}
	if !strings.HasSuffix(m.Head().Type, "/event") {
		if cm, ok := m.(Correlated); ok && cm.RequestID() != "" {
			// The first answer takes the call out of pending, so that a
			// second one finds no call and goes to OnEvent like any
			// message nobody waits for. ch has room for the one answer.
			c.mu.Lock()
			ch := c.pending[cm.RequestID()]
			delete(c.pending, cm.RequestID())
			c.mu.Unlock()
			if ch != nil {
				ch <- m
				return
			}
		}
	}
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(m)
		return
	}
	c.log.Debug("session: message dropped (no OnEvent)", "type", m.Head().Type, "id", m.Head().ID)
}
