package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/session"
)

// peer is the server's side of a session in a test: it reads what the
// client sends and answers by hand.
type peer struct {
	t    *testing.T
	conn io.ReadWriteCloser
	rd   *session.Reader
	wr   *session.Writer
}

func newPeer(t *testing.T, r io.Reader, conn io.ReadWriteCloser) *peer {
	return &peer{t: t, conn: conn, rd: session.NewReader(r, newRegistry(t), session.Limits{}),
		wr: session.NewWriter(conn, session.Stamper{}, session.Limits{})}
}

// recv reads the client's next message. It may run on any goroutine.
func (p *peer) recv() session.Message {
	m, err := p.rd.Next()
	if err != nil {
		p.t.Errorf("peer: read: %v", err)
		return &session.Generic{}
	}
	return m
}

func (p *peer) send(m session.Message) {
	if err := p.wr.Write(m); err != nil {
		p.t.Errorf("peer: write %s: %v", m.MessageType(), err)
	}
}

// sendRaw writes bytes as they are, e.g. a line that is not JSON.
func (p *peer) sendRaw(s string) {
	if _, err := io.WriteString(p.conn, s); err != nil {
		p.t.Errorf("peer: write: %v", err)
	}
}

// recvEOF: the client closed its side.
func (p *peer) recvEOF() {
	if m, err := p.rd.Next(); err == nil {
		p.t.Errorf("peer: got %s, want the end of the stream", m.Head().Type)
	}
}

// events collects what OnEvent receives.
type events struct {
	mu   sync.Mutex
	msgs []session.Message
}

func (e *events) add(m session.Message) {
	e.mu.Lock()
	e.msgs = append(e.msgs, m)
	e.mu.Unlock()
}

func (e *events) all() []session.Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.msgs)
}

// connect starts a client over net.Pipe; the peer answers the handshake
// with hs (which may set max_parallel and so on) and returns it the request.
func connect(t *testing.T, opts session.ClientOptions, hs *session.HandshakeResp) (*session.Client, *peer, *session.HandshakeReq) {
	t.Helper()
	cc, sc := net.Pipe()
	p := newPeer(t, sc, sc)
	t.Cleanup(func() { _ = sc.Close() })
	got := make(chan *session.HandshakeReq, 1)
	go func() {
		req, _ := p.recv().(*session.HandshakeReq)
		got <- req
		if req != nil {
			hs.ReqID = req.ID
			p.send(hs)
		}
	}()
	c, err := session.Connect(context.Background(), cc, cc, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, p, <-got
}

func okHandshake() *session.HandshakeResp {
	return &session.HandshakeResp{OK: true, SessionID: "sess-1",
		AcceptedCaps: []session.CapabilityAck{{Capability: "tools", Enabled: true}, {Capability: "mcp", Enabled: false}}}
}

func TestClientHandshake(t *testing.T) {
	c, _, req := connect(t, session.ClientOptions{AgentID: "bot", AuthToken: "slk_secret_k"}, okHandshake())
	if req.AgentID != "bot" || req.AuthToken != "slk_secret_k" || !slices.Equal(req.AgentCaps, []string{"tools", "mcp"}) ||
		req.A2E != "1.0" || !session.ValidID(req.ID) {
		t.Errorf("handshake/req: %#v", req)
	}
	hs := c.Handshake()
	if hs == nil || !hs.OK || hs.SessionID != "sess-1" {
		t.Fatalf("Handshake() = %#v", hs)
	}
	if ack, ok := hs.Cap("mcp"); !ok || ack.Enabled {
		t.Errorf("mcp: %v %v", ack, ok)
	}
}

func TestClientHandshakeCaps(t *testing.T) {
	_, _, req := connect(t, session.ClientOptions{Caps: []string{"tools"}}, okHandshake())
	if !slices.Equal(req.AgentCaps, []string{"tools"}) {
		t.Errorf("agent_caps %v", req.AgentCaps)
	}
}

// TestClientHandshakeRefused: ok false, an `error` answer and a context that
// ends all fail Connect, and the client closes the connection.
func TestClientHandshakeRefused(t *testing.T) {
	cases := []struct {
		name   string
		answer func(p *peer, req session.Message) // nil: never answers
		check  func(t *testing.T, err error)
	}{
		{"auth_failed", func(p *peer, req session.Message) {
			p.send(&session.HandshakeResp{Ref: session.Ref{ReqID: req.Head().ID}, OK: false, Reason: session.ReasonAuthFailed})
		}, func(t *testing.T, err error) {
			var he *session.HandshakeError
			if !errors.As(err, &he) || he.Reason != session.ReasonAuthFailed || !strings.Contains(err.Error(), "auth_failed") {
				t.Errorf("err %v, want a *HandshakeError auth_failed", err)
			}
		}},
		{"version_mismatch", func(p *peer, req session.Message) {
			p.send(&session.HandshakeResp{Ref: session.Ref{ReqID: req.Head().ID}, OK: false, Reason: session.ReasonVersionMismatch})
		}, func(t *testing.T, err error) {
			var he *session.HandshakeError
			if !errors.As(err, &he) || he.Reason != session.ReasonVersionMismatch {
				t.Errorf("err %v", err)
			}
		}},
		{"error answer", func(p *peer, req session.Message) {
			p.send(&session.ErrorMessage{ReqID: req.Head().ID, Code: session.CodeInvalidMessage, Message: "no"})
		}, func(t *testing.T, err error) {
			var em *session.ErrorMessage
			if !errors.As(err, &em) || em.Code != session.CodeInvalidMessage {
				t.Errorf("err %v, want an *ErrorMessage", err)
			}
		}},
		{"the peer hangs up", func(p *peer, req session.Message) { _ = p.conn.Close() },
			func(t *testing.T, err error) {
				if !errors.Is(err, session.ErrClosed) {
					t.Errorf("err %v, want ErrClosed", err)
				}
			}},
		{"context ends", nil, func(t *testing.T, err error) {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cc, sc := net.Pipe()
			defer sc.Close()
			p := newPeer(t, sc, sc)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				req := p.recv()
				if c.answer == nil {
					cancel()
				} else {
					c.answer(p, req)
				}
				if c.name != "the peer hangs up" {
					p.recvEOF() // the client closed the connection
				}
			}()
			_, err := session.Connect(ctx, cc, cc, session.ClientOptions{AuthToken: "slk_secret_k"})
			c.check(t, err)
			<-done
			if strings.Contains(err.Error(), "slk_secret") {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
}

func TestClientListTools(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	go func() {
		req, ok := p.recv().(*session.ToolListReq)
		if !ok || req.Query != "filter" || !slices.Equal(req.FilterTags, []string{"operation"}) {
			t.Errorf("tool/list/req: %#v", req)
			return
		}
		p.send(&session.ToolListResp{Ref: session.Ref{ReqID: req.ID}, Tools: []session.ToolInfo{{Name: "op.FilterData", Idempotent: true}}})
	}()
	resp, err := c.ListTools(context.Background(), &session.ToolListReq{Query: "filter", FilterTags: []string{"operation"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Tools) != 1 || resp.Tools[0].Name != "op.FilterData" || !resp.Tools[0].Idempotent {
		t.Errorf("tools %#v", resp.Tools)
	}
}

// TestClientCallWithEvents: a streaming call's events reach OnEvent, in
// order, before CallTool returns the response; the call takes the session's
// id from the handshake.
func TestClientCallWithEvents(t *testing.T) {
	var ev events
	c, p, _ := connect(t, session.ClientOptions{OnEvent: ev.add}, okHandshake())
	go func() {
		req, ok := p.recv().(*session.ToolCallReq)
		if !ok || req.SessionID != "sess-1" || req.ToolName != "workflow.execute" || !req.Streaming || string(req.Arguments) != `{"workflow":"w"}` {
			t.Errorf("tool/call/req: %#v", req)
			return
		}
		var seq session.Sequencer
		for _, kind := range []session.EventKind{session.KindProgress, session.KindLog, session.KindProgress} {
			p.send(&session.ToolEvent{EventFields: session.EventFields{Ref: session.Ref{ReqID: req.ID}, Kind: kind, Seq: seq.Next(req.ID)}})
		}
		p.send(&session.Event{EventFields: session.EventFields{Ref: session.Ref{ReqID: req.ID}, Kind: session.KindStatus, Seq: seq.Next(req.ID)}})
		p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req.ID}, Data: session.ToolResult{Success: true, ToolName: req.ToolName,
			Data: json.RawMessage(`{"status":"success"}`)}})
	}()
	resp, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "workflow.execute", Streaming: true,
		Arguments: json.RawMessage(`{"workflow":"w"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Data.Success || string(resp.Data.Data) != `{"status":"success"}` {
		t.Errorf("resp %#v", resp.Data)
	}
	got := ev.all()
	if len(got) != 4 {
		t.Fatalf("%d events, want 4", len(got))
	}
	for i, m := range got {
		var f session.EventFields
		switch e := m.(type) {
		case *session.ToolEvent:
			f = e.EventFields
		case *session.Event:
			f = e.EventFields
		}
		if f.Seq != i || f.ReqID != resp.ReqID {
			t.Errorf("event %d: %#v", i, m)
		}
	}
}

// TestClientToolFailedAndRefused: a tool that ran and failed is a response;
// a call that could not run is an *ErrorMessage error.
func TestClientToolFailedAndRefused(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	go func() {
		req := p.recv()
		p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req.Head().ID}, Data: session.ToolResult{Success: false,
			Error: "did not validate", ErrorCode: "invalid_workflow"}})
		req = p.recv()
		p.send(&session.ErrorMessage{ReqID: req.Head().ID, Code: session.CodeToolDenied, Message: "not permitted"})
	}()
	resp, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "workflow.execute"})
	if err != nil || resp.Data.Success || resp.Data.ErrorCode != "invalid_workflow" {
		t.Errorf("failed tool: %#v, %v", resp, err)
	}
	_, err = c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "op.ApiCall"})
	var em *session.ErrorMessage
	if !errors.As(err, &em) || em.Code != session.CodeToolDenied || em.Message != "not permitted" {
		t.Errorf("refused tool: %v", err)
	}
}

// TestClientConcurrentCalls: answers in any order reach their own calls.
func TestClientConcurrentCalls(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	const n = 5
	go func() {
		var reqs []*session.ToolCallReq
		for range n {
			req, _ := p.recv().(*session.ToolCallReq)
			reqs = append(reqs, req)
		}
		for _, req := range slices.Backward(reqs) { // the last first
			if req != nil {
				p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req.ID}, Data: session.ToolResult{Success: true,
					Data: json.RawMessage(`"` + req.ToolName + `"`)}})
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			name := "op.T" + string(rune('a'+i))
			resp, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: name})
			if err != nil || string(resp.Data.Data) != `"`+name+`"` {
				t.Errorf("%s got %v, %v", name, resp, err)
			}
		})
	}
	wg.Wait()
}

func TestClientPing(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	go func() {
		req := p.recv()
		if req.Head().Type != session.TypePing {
			t.Errorf("got %s, want ping", req.Head().Type)
		}
		p.send(&session.Pong{Ref: session.Ref{ReqID: req.Head().ID}, UptimeSeconds: 3})
	}()
	pong, err := c.Ping(context.Background())
	if err != nil || pong.UptimeSeconds != 3 {
		t.Fatalf("Ping: %v, %v", pong, err)
	}

	// The server's ping is answered with a pong that names it.
	ping := &session.Ping{}
	p.send(ping)
	got, ok := p.recv().(*session.Pong)
	if !ok || got.ReqID != ping.ID || got.UptimeSeconds < 0 {
		t.Fatalf("answer to the server's ping: %#v", got)
	}
}

// TestClientShutdown: the client asks, the server answers and closes; the
// client is closed after.
func TestClientShutdown(t *testing.T) {
	for _, answer := range []bool{true, false} {
		name := map[bool]string{true: "answered", false: "closed without answer"}[answer]
		t.Run(name, func(t *testing.T) {
			c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
			go func() {
				req, ok := p.recv().(*session.Shutdown)
				if !ok || req.Timeout != 2.5 || req.ReqID != "" {
					t.Errorf("shutdown: %#v", req)
				}
				if answer {
					p.send(&session.Shutdown{ReqID: req.ID})
				}
				_ = p.conn.Close()
			}()
			if err := c.Shutdown(context.Background(), 2.5); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			if _, err := c.Ping(context.Background()); !errors.Is(err, session.ErrClosed) {
				t.Errorf("a call after Shutdown: %v, want ErrClosed", err)
			}
		})
	}
}

// TestClientServerShutdown: the server ends the session: the client
// acknowledges, takes no new calls, and sees the end when the server closes.
func TestClientServerShutdown(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	sd := &session.Shutdown{Timeout: 1}
	p.send(sd)
	ack, ok := p.recv().(*session.Shutdown)
	if !ok || ack.ReqID != sd.ID {
		t.Fatalf("acknowledgement: %#v", ack)
	}
	if _, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "op.Wait"}); !errors.Is(err, session.ErrShuttingDown) {
		t.Errorf("a call while shutting down: %v, want ErrShuttingDown", err)
	}
	_ = p.conn.Close()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestClientPeerGoesAway: calls in flight end with ErrClosed when the
// connection ends, and later calls fail the same way.
func TestClientPeerGoesAway(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	const n = 3
	go func() {
		for range n {
			p.recv()
		}
		_ = p.conn.Close()
	}()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "op.Wait"})
			if !errors.Is(err, session.ErrClosed) {
				t.Errorf("a call in flight: %v, want ErrClosed", err)
			}
		})
	}
	wg.Wait()
	if _, err := c.Ping(context.Background()); !errors.Is(err, session.ErrClosed) {
		t.Errorf("a call after: %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after the peer left: %v", err)
	}
}

// TestClientWriteFails: a call whose line cannot be written (the peer is
// gone but the client has not read that yet) ends the session with ErrClosed.
func TestClientWriteFails(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	_ = p.conn.Close()
	for range 2 {
		if _, err := c.Ping(context.Background()); !errors.Is(err, session.ErrClosed) {
			t.Errorf("Ping: %v, want ErrClosed", err)
		}
	}
}

// TestClientMaxParallel: with max_parallel 1 a second tool call waits for a
// place and is not sent while it waits; other requests are not held.
func TestClientMaxParallel(t *testing.T) {
	hs := okHandshake()
	hs.MaxParallel = 1
	c, p, _ := connect(t, session.ClientOptions{}, hs)
	first := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "op.First"})
		first <- err
	}()
	req1 := p.recv()
	// The place is taken: a call whose context has ended gives up at once,
	// without writing anything.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: "op.Second"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("second call: %v, want context.Canceled", err)
	}
	// A ping is no tool call: it goes through while the place is taken.
	go func() {
		ping := p.recv()
		if ping.Head().Type != session.TypePing {
			t.Errorf("got %s, want the ping (the cancelled call must not have been sent)", ping.Head().Type)
		}
		p.send(&session.Pong{Ref: session.Ref{ReqID: ping.Head().ID}})
		p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req1.Head().ID}, Data: session.ToolResult{Success: true}})
	}()
	if _, err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// The place is free again.
	go func() {
		req := p.recv()
		p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req.Head().ID}, Data: session.ToolResult{Success: true}})
	}()
	if _, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "op.Third"}); err != nil {
		t.Fatal(err)
	}
}

// TestClientLateAnswer: a call whose context ends returns; its answer, when it
// comes, goes to OnEvent as a message no call waits for.
func TestClientLateAnswer(t *testing.T) {
	var ev events
	c, p, _ := connect(t, session.ClientOptions{OnEvent: ev.add}, okHandshake())
	ctx, cancel := context.WithCancel(context.Background())
	returned, routed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(routed)
		req := p.recv()
		cancel()
		<-returned
		p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req.Head().ID}, Data: session.ToolResult{Success: true}})
		// The client reads in order: its pong to this ping proves the
		// answer before it was routed.
		p.send(&session.Ping{})
		p.recv()
	}()
	_, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: "op.Wait"})
	close(returned)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	<-routed
	if got := ev.all(); len(got) != 1 || got[0].Head().Type != session.TypeToolCallResp {
		t.Errorf("OnEvent got %v, want the late tool/call/resp", got)
	}
}

// TestClientOddAnswers: lines the client cannot read are logged and
// skipped; an answer of another type is an error of Request; a second answer
// to one request is dropped; a message nobody waits for goes to OnEvent.
func TestClientOddAnswers(t *testing.T) {
	var logBuf syncBuffer
	var ev events
	c, p, _ := connect(t, session.ClientOptions{OnEvent: ev.add, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}, okHandshake())
	go func() {
		req := p.recv()
		p.sendRaw("this is not json\n")
		p.sendRaw(`{"a2e":"1.0","type":"tool/call/resp","id":"` + idReq2 + `","ts":1,"req_id":"` + req.Head().ID + `"}` + "\n") // data missing
		// An answer of a type the client does not know, naming the request.
		p.send(&session.Generic{Header: session.Header{Type: "tool/call/other"}, Fields: map[string]json.RawMessage{
			"req_id": json.RawMessage(`"` + req.Head().ID + `"`)}})
		p.send(&session.ToolCallResp{Ref: session.Ref{ReqID: req.Head().ID}, Data: session.ToolResult{Success: true}}) // too late: dropped
		p.send(&session.Generic{Header: session.Header{Type: "chain/event"}})
		req = p.recv()
		p.send(&session.Pong{Ref: session.Ref{ReqID: req.Head().ID}})
	}()
	_, err := c.CallTool(context.Background(), &session.ToolCallReq{ToolName: "op.Wait"})
	if err == nil || !strings.Contains(err.Error(), "tool/call/req was answered with tool/call/other") {
		t.Fatalf("err %v", err)
	}
	if _, err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	logs := logBuf.String()
	if strings.Count(logs, "cannot read") != 2 {
		t.Errorf("logs: %s", logs)
	}
	got := ev.all()
	// The second answer to the call finds no call waiting (the first
	// answer took it), so OnEvent has it, then the chain/event.
	if len(got) != 2 || got[0].Head().Type != session.TypeToolCallResp || got[1].Head().Type != "chain/event" {
		var types []string
		for _, m := range got {
			types = append(types, m.Head().Type)
		}
		t.Errorf("OnEvent got %v", types)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClientSameIDTwice: a request whose id is in flight is refused.
func TestClientSameIDTwice(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	first := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), &session.Ping{Header: session.Header{ID: idReq}})
		first <- err
	}()
	req := p.recv()
	if _, err := c.Call(context.Background(), &session.Ping{Header: session.Header{ID: idReq}}); err == nil ||
		!strings.Contains(err.Error(), "already in flight") {
		t.Errorf("err %v", err)
	}
	p.send(&session.Pong{Ref: session.Ref{ReqID: req.Head().ID}})
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// TestClientClose: Close ends calls in flight, closes the connection, and
// may be called again.
func TestClientClose(t *testing.T) {
	c, p, _ := connect(t, session.ClientOptions{}, okHandshake())
	done := make(chan error, 1)
	go func() {
		_, err := c.Ping(context.Background())
		done <- err
	}()
	p.recv()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, session.ErrClosed) {
		t.Errorf("a call in flight: %v, want ErrClosed", err)
	}
	p.recvEOF()
	if err := c.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}

// TestClientOverIOPipes: a reader and a writer apart, as a child process's
// stdout and stdin; Close closes both.
func TestClientOverIOPipes(t *testing.T) {
	toClient, fromServer := io.Pipe()
	toServer, fromClient := io.Pipe()
	p := newPeer(t, toServer, struct {
		io.Reader
		io.WriteCloser
	}{toServer, fromServer})
	go func() {
		req := p.recv()
		p.send(&session.HandshakeResp{Ref: session.Ref{ReqID: req.Head().ID}, OK: true})
		req = p.recv()
		p.send(&session.Pong{Ref: session.Ref{ReqID: req.Head().ID}})
		p.recvEOF()
	}()
	c, err := session.Connect(context.Background(), toClient, fromClient, session.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fromServer.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("the client's reader is still open: %v", err)
	}
}

// The client's reading goroutine never waits on its own writes: a server
// that sends a ping and then more messages before it reads anything (over a
// transport without buffering, like net.Pipe) is not deadlocked by the pong.
func TestClientPongDoesNotBlockReading(t *testing.T) {
	var got events
	_, p, _ := connect(t, session.ClientOptions{OnEvent: got.add}, okHandshake())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			p.send(&session.Ping{})
		}
		for range 20 {
			p.send(&session.ToolEvent{EventFields: session.EventFields{Ref: session.Ref{ReqID: strings.Repeat("ab", 16)}, Kind: session.KindLog}})
		}
		for range 3 {
			if _, ok := p.recv().(*session.Pong); !ok {
				t.Error("want a pong")
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("deadlocked: the client's reader waited to write a pong while the server waited to write to it")
	}
	// The last events may still be on their way through the reader.
	deadline := time.Now().Add(20 * time.Second)
	for len(got.all()) < 20 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := len(got.all()); n != 20 {
		t.Fatalf("%d events, want 20", n)
	}
}
