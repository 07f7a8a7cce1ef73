package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
	"github.com/sluicehq/sluice/protocol/session"
)

// SessionConfig are the limits of A2E sessions; they are announced in the
// handshake, and exceeding one gets an error, never a dropped connection.
type SessionConfig struct {
	MaxLineBytes     int           // default 1 MiB
	MaxParallel      int           // calls in flight per session (default 16)
	CallsPerSecond   float64       // per session (default 100; bursts of MaxParallel)
	HandshakeTimeout time.Duration // the first message must arrive within it (default 10 s)
	ShutdownTimeout  time.Duration // default drain time of a shutdown without one (default 10 s)
	// Connections (WebSocket, TCP) still in their handshake: on the server
	// (default 256) and per remote address (default 32).
	MaxUnauthenticated           int
	MaxUnauthenticatedPerAddress int
}

func (c SessionConfig) withDefaults() SessionConfig {
	if c.MaxLineBytes <= 0 {
		c.MaxLineBytes = session.DefaultMaxLineBytes
	}
	if c.MaxParallel <= 0 {
		c.MaxParallel = 16
	}
	if c.CallsPerSecond <= 0 {
		c.CallsPerSecond = 100
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 10 * time.Second
	}
	if c.MaxUnauthenticated <= 0 {
		c.MaxUnauthenticated = 256
	}
	if c.MaxUnauthenticatedPerAddress <= 0 {
		c.MaxUnauthenticatedPerAddress = 32
	}
	return c
}

// MsgConn is one session's transport: whole lines (messages) in and out.
// Stream transports (stdio, TCP) read through session.Reader; WebSocket reads
// frames.
type MsgConn interface {
	// ReadLine returns the next message's bytes; a *session.Error for a line
	// the transport had to drop (too long), after which reading goes on.
	ReadLine() ([]byte, error)
	// WriteLine writes one message (without its newline); safe for
	// concurrent use.
	WriteLine(b []byte) error
	// Authenticated says the handshake is accepted: until then a message
	// (a WebSocket frame) may be at most session.MaxHandshakeBytes, from
	// now on up to the session's line limit. Called before the next read.
	Authenticated()
	Close() error
}

// servedCapabilities are the SDK capabilities sluice serves (the tool
// namespace, and the mcp namespace when the server has MCP); accepted_caps
// answers the others of session.Capabilities with enabled false.
func (s *Server) servedCapabilities(name string) bool {
	switch name {
	case session.CapTools:
		return true
	case session.CapMCP:
		return s.svc.MCP != nil
	}
	return false
}

// ServeSession serves one session on c until the peer goes away, shuts it
// down, or ctx ends. Every call is an envelope through the dispatcher (the
// session codec), carrying the authentication of the handshake: rate
// limits, permissions and audit are REST's.
func (s *Server) ServeSession(ctx context.Context, c MsgConn, transport string) {
	s.serveSession(ctx, c, transport, func() {})
}

// serveSession is ServeSession; handshakeOver is called once the handshake
// is accepted or refused (it frees the connection's unauthenticated slot).
func (s *Server) serveSession(ctx context.Context, c MsgConn, transport string, handshakeOver func()) {
	cfg := s.cfg.Session.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	ss := &sessionConn{s: s, c: c, cfg: cfg, transport: transport, started: s.clock.Now(), cancel: cancel,
		limiter: rate.NewLimiter(rate.Limit(cfg.CallsPerSecond), max(cfg.MaxParallel, 1))}
	defer func() {
		cancel() // the peer is gone: stop its calls
		ss.calls.Wait()
		_ = c.Close()
	}()
	ok := ss.handshake(ctx)
	handshakeOver()
	if !ok {
		return
	}
	c.Authenticated()
	for {
		line, err := c.ReadLine()
		if err != nil {
			var se *session.Error
			if errors.As(err, &se) {
				ss.send(se.Reply())
				continue
			}
			if errors.Is(err, io.EOF) {
				// The peer's input ended (stdin closed, a TCP half-close): its
				// calls in flight still have their answers written, within the
				// drain time of a shutdown, as an agent host that writes its
				// calls and then closes its end reads every answer.
				ss.drain(cfg.ShutdownTimeout)
			}
			return // end of the stream, or a broken transport
		}
		m, err := s.sessions.DecodeNoting(line, session.Limits{MaxLineBytes: cfg.MaxLineBytes}, ss.ignored)
		if err != nil {
			var se *session.Error
			if errors.As(err, &se) {
				ss.send(se.Reply())
				continue
			}
			ss.send(&session.ErrorMessage{Code: session.CodeInvalidMessage, Message: err.Error()})
			continue
		}
		if ss.handle(ctx, m) {
			return
		}
	}
}

// sessionConn is one served session.
type sessionConn struct {
	s         *Server
	c         MsgConn
	cfg       SessionConfig
	transport string
	started   time.Time
	cancel    context.CancelFunc

	auth      *ConnAuth // the handshake's authentication, which every call carries
	sessionID string
	agentID   string
	mcp       bool // the mcp namespace is enabled

	limiter  *rate.Limiter
	inflight atomic.Int32
	closing  atomic.Bool
	calls    sync.WaitGroup
	seq      session.Sequencer
	writeErr atomic.Bool
}

// send writes m; a failed write ends nothing here: the read loop sees the
// broken transport.
func (ss *sessionConn) send(m session.Message) {
	session.Stamper{Now: ss.s.clock.Now}.Stamp(m)
	b, err := session.Marshal(m)
	if err != nil {
		ss.s.log.Error("session message not encodable", "type", m.MessageType(), "error", err)
		return
	}
	if err := ss.c.WriteLine(b); err != nil {
		ss.writeErr.Store(true)
	}
}

// handshake reads and answers the first message: it must be handshake/req
// with a valid key, else the session ends.
func (ss *sessionConn) handshake(ctx context.Context) bool {
	type read struct {
		line []byte
		err  error
	}
	got := make(chan read, 1)
	go func() {
		l, err := ss.c.ReadLine()
		got <- read{append([]byte(nil), l...), err}
	}()
	var r read
	t := time.NewTimer(ss.cfg.HandshakeTimeout)
	defer t.Stop()
	select {
	case r = <-got:
	case <-t.C:
		ss.send(&session.ErrorMessage{Code: session.CodeTimeout, Message: "no handshake/req within the handshake timeout"})
		return false
	case <-ctx.Done():
		return false
	}
	if r.err != nil {
		var se *session.Error
		if errors.As(r.err, &se) {
			ss.send(se.Reply())
		}
		return false
	}
	m, err := ss.s.sessions.DecodeNoting(r.line, session.Limits{MaxLineBytes: ss.cfg.MaxLineBytes}, ss.ignored)
	var se *session.Error
	if errors.As(err, &se) && se.Code == session.CodeVersionMismatch && se.Type == session.TypeHandshakeReq {
		ss.send(&session.HandshakeResp{Ref: session.Ref{ReqID: se.ID}, OK: false, Reason: session.ReasonVersionMismatch})
		return false
	}
	if err != nil {
		if se != nil {
			ss.send(se.Reply())
		}
		return false
	}
	req, ok := m.(*session.HandshakeReq)
	if !ok {
		ss.send(&session.ErrorMessage{ReqID: m.Head().ID, Code: session.CodeInvalidMessage,
			Message: "the first message of a session must be handshake/req, not " + m.Head().Type})
		return false
	}
	// The key is checked here, once, by the dispatcher (which audits a
	// refusal); the session's calls carry what it found.
	auth, err := ss.s.dispatcher.OpenConn(ctx, req.AuthToken, req.ID, "session.handshake")
	if err != nil {
		ss.send(&session.HandshakeResp{Ref: session.Ref{ReqID: req.ID}, OK: false, Reason: session.ReasonAuthFailed})
		return false
	}
	ss.auth, ss.agentID, ss.sessionID = auth, auth.AccountID(), session.NewID()
	acks := ss.acceptCaps(req.AgentCaps)
	ss.send(&session.HandshakeResp{Ref: session.Ref{ReqID: req.ID}, SessionID: ss.sessionID, AcceptedCaps: acks,
		MaxParallel: ss.cfg.MaxParallel, OK: true,
		Limits: session.SessionLimits{MaxLineBytes: ss.cfg.MaxLineBytes, CallsPerSecond: ss.cfg.CallsPerSecond}})
	ss.s.log.Debug("session opened", "sessionId", ss.sessionID, "account", ss.agentID, "transport", ss.transport)
	return true
}

// acceptCaps answers agent_caps: each capability of the SDK's list asked
// for, once, enabled when sluice serves it. Other names (the SDK's default
// "streaming" and "artifacts") are left out: the SDK refuses a whole
// handshake/resp that names one outside its list.
func (ss *sessionConn) acceptCaps(asked []string) []session.CapabilityAck {
	acks := []session.CapabilityAck{}
	for _, name := range asked {
		if !session.KnownCapability(name) || slices.ContainsFunc(acks, func(a session.CapabilityAck) bool { return a.Capability == name }) {
			continue
		}
		enabled := ss.s.servedCapabilities(name)
		if name == session.CapMCP {
			ss.mcp = enabled
		}
		acks = append(acks, session.CapabilityAck{Capability: name, Enabled: enabled})
	}
	return acks
}

// ignored logs a field a message carried that its type does not define: it
// is skipped, as the SDK's models skip it, and a peer's typo shows up here.
func (ss *sessionConn) ignored(f session.IgnoredField) {
	ss.s.log.Debug("session: skipped a field the message type does not define",
		"type", f.Type, "field", f.Path, "suggestions", f.Suggestions, "sessionId", ss.sessionID)
}

// handle answers one message; it reports whether the session ends.
func (ss *sessionConn) handle(ctx context.Context, m session.Message) bool {
	id := m.Head().ID
	switch x := m.(type) {
	case *session.Ping:
		ss.send(&session.Pong{Ref: session.Ref{ReqID: id}, UptimeSeconds: ss.s.clock.Now().Sub(ss.started).Seconds()})
	case *session.Pong:
		// an answer to a ping of ours: nothing to do
	case *session.Shutdown:
		ss.shutdown(x)
		return true
	case *session.HandshakeReq:
		ss.send(&session.ErrorMessage{ReqID: id, Code: session.CodeInvalidMessage, Message: "the session has had its handshake"})
	case *session.ToolListReq:
		ss.start(ctx, id, e2a.MethodToolList, map[string]any{"query": x.Query, "filter_tags": anyStrings(x.FilterTags),
			"filter_kind": x.FilterKind, "include_deferred": x.IncludeDeferred}, ss.listDone)
	case *session.ToolCallReq:
		params := map[string]any{"tool_name": x.ToolName, "streaming": x.Streaming}
		if len(x.Arguments) > 0 {
			var args any
			if err := json.Unmarshal(x.Arguments, &args); err != nil {
				ss.send(&session.ErrorMessage{ReqID: id, Code: session.CodeSchemaViolation, Message: "arguments: " + err.Error()})
				return false
			}
			params["arguments"] = args
		}
		if x.Timeout > 0 {
			params["timeout"] = x.Timeout
		}
		if x.CorrelationID != "" {
			params["correlation_id"] = x.CorrelationID
		}
		ss.start(sessionTraceContext(ctx, x.Meta), id, e2a.MethodToolCall, params, ss.callDone(x.ToolName))
	case *session.MCPRegisterReq, *session.MCPListReq, *session.MCPUnregisterReq:
		if !ss.mcp {
			ss.send(&session.ErrorMessage{ReqID: id, Code: session.CodeUnknownType, CapabilityName: "mcp",
				Message: "the mcp namespace is not enabled in this session (ask for it in agent_caps)"})
			return false
		}
		ss.startMCP(ctx, m)
	case *session.Generic:
		ss.send(&session.ErrorMessage{ReqID: id, Code: session.CodeUnknownType, Message: "no handler for message type " + x.MessageType()})
	default:
		ss.send(&session.ErrorMessage{ReqID: id, Code: session.CodeInvalidMessage, Message: m.Head().Type + " is not a request a host answers"})
	}
	return false
}

// answer turns a call's final frame into the session's answer.
type answer func(reqID string, final *e2a.Response) session.Message

// start dispatches a call in its own goroutine, within the session's limits.
//
// max_parallel and calls_per_second are the session's transport bounds,
// announced in its handshake: they keep one connection from holding more of
// the server than it said it would, and are the only check on a session's
// call besides the dispatcher's (authenticate, admit: the account's rate
// limits, permissions and audit, as for any call).
func (ss *sessionConn) start(ctx context.Context, reqID, method string, params map[string]any, done answer) {
	if ss.closing.Load() {
		ss.send(&session.ErrorMessage{ReqID: reqID, Code: session.CodeRuntimeError, Message: "the session is shutting down"})
		return
	}
	if int(ss.inflight.Load()) >= ss.cfg.MaxParallel {
		ss.send(&session.ErrorMessage{ReqID: reqID, Code: session.CodeRateLimited, Retryable: true,
			Message: "too many calls in flight: the limit is " + itoa(ss.cfg.MaxParallel)})
		return
	}
	if !ss.limiter.Allow() {
		ss.send(&session.ErrorMessage{ReqID: reqID, Code: session.CodeRateLimited, Retryable: true,
			Message: "too many calls per second for this session"})
		return
	}
	ss.inflight.Add(1)
	ss.calls.Add(1)
	// The slot is given back before the answer is sent: a peer that waits for
	// each answer before its next call must never find the slot still taken.
	var released atomic.Bool
	release := func() {
		if released.CompareAndSwap(false, true) {
			ss.inflight.Add(-1)
		}
	}
	go func() {
		defer ss.calls.Done()
		defer release()
		defer ss.seq.Forget(reqID)
		req := sessionRequest{reqID: reqID, method: method, params: params, done: done, release: release}
		serve(ctx, ss.s.dispatcher, sessionCodec{ss}, req)
	}()
}

// sessionRequest is one call a session's message asks for (handle reads the
// message): the gateway method and its params, how its final frame is
// answered, and the in-flight slot it holds.
type sessionRequest struct {
	reqID   string
	method  string
	params  map[string]any
	done    answer
	release func()
}

// sessionCodec is the A2E session ingress of one connection (stdio, TCP,
// WebSocket): a call carries the connection's authentication, not a key,
// and its frames go back as tool/event messages and one answer.
type sessionCodec struct{ ss *sessionConn }

func (sc sessionCodec) Decode(r sessionRequest) (*Call, error) {
	ss := sc.ss
	env := e2a.NewEnvelope()
	env.RequestID, env.Method, env.Params = r.reqID, r.method, r.params
	env.SessionID, env.Channel, env.Timestamp = ss.sessionID, "session", e2a.Time(ss.s.clock.Now())
	return &Call{Env: env, conn: ss.auth, Transport: ss.transport}, nil
}

func (sc sessionCodec) Encoder(r sessionRequest, _ *Call) Encoder {
	return sessionEncoder{ss: sc.ss, r: r}
}

// sessionEncoder sends a call's progress as tool/event messages and its
// final frame as the request's answer.
type sessionEncoder struct {
	ss *sessionConn
	r  sessionRequest
}

func (e sessionEncoder) WriteFrame(f *e2a.Response) error {
	if f.IsFinal {
		answer := e.r.done(e.r.reqID, f)
		e.r.release()
		e.ss.send(answer)
		return nil
	}
	if delta, ok := f.Body["delta"].(map[string]any); ok {
		kind, _ := delta["kind"].(string)
		if kind == "" {
			kind = string(session.KindProgress)
		}
		e.ss.send(&session.ToolEvent{EventFields: session.EventFields{Ref: session.Ref{ReqID: e.r.reqID}, Kind: session.EventKind(kind),
			Data: eventData(delta["data"]), Seq: e.ss.seq.Next(e.r.reqID)}})
	}
	return nil
}

// Close has nothing to do: the answer went at the final frame.
func (sessionEncoder) Close() {}

// listDone answers tool.list: each tool as the SDK's ToolDefinition, its
// JSON Schemas described as parameter lists and kept whole beside them.
func (ss *sessionConn) listDone(reqID string, f *e2a.Response) session.Message {
	if f.Kind == e2a.KindError {
		return errorReply(reqID, f)
	}
	var body struct {
		Tools []struct {
			session.ToolInfo
			Input  json.RawMessage `json:"input_parameters"`
			Output json.RawMessage `json:"output_parameters"`
		} `json:"tools"`
	}
	if err := remarshalAny(f.Body["result"], &body); err != nil {
		return &session.ErrorMessage{ReqID: reqID, Code: session.CodeRuntimeError, Message: "the tool list could not be encoded"}
	}
	list := make([]session.ToolInfo, len(body.Tools))
	for i, t := range body.Tools {
		info := t.ToolInfo
		info.InputParameters, info.OutputParameters = session.ParametersOf(t.Input), session.ParametersOf(t.Output)
		info.InputSchema, info.OutputSchema = schemaOrNil(t.Input), schemaOrNil(t.Output)
		list[i] = info
	}
	return &session.ToolListResp{Ref: session.Ref{ReqID: reqID}, Tools: list}
}

// schemaOrNil is a JSON Schema to write, or nil for none (null).
func schemaOrNil(s json.RawMessage) json.RawMessage {
	if len(s) == 0 || string(s) == "null" {
		return nil
	}
	return s
}

// eventData is an event's data as a JSON object, the only data the SDK's
// models take: an object as it is, nothing as nothing, any other value
// under "value".
func eventData(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	if _, isObject := v.(map[string]any); !isObject {
		v = map[string]any{"value": v}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// callDone answers tool.call: a tool that ran answers tool/call/resp
// (success or not); one that could not run answers error.
func (ss *sessionConn) callDone(tool string) answer {
	return func(reqID string, f *e2a.Response) session.Message {
		if f.Kind == e2a.KindError {
			return errorReply(reqID, f)
		}
		res, err := sessionToolResult(f.Body["result"])
		if err != nil {
			return &session.ErrorMessage{ReqID: reqID, Code: session.CodeRuntimeError, Message: "the tool's result could not be encoded"}
		}
		if res.ToolName == "" {
			res.ToolName = tool
		}
		return &session.ToolCallResp{Ref: session.Ref{ReqID: reqID}, Data: res}
	}
}

// errorReply is the session's renderer of an e2a.error frame: its code's
// row in fault's table gives the session code and whether to retry.
func errorReply(reqID string, f *e2a.Response) *session.ErrorMessage {
	code, _ := f.Body["code"].(string)
	msg, _ := f.Body["message"].(string)
	row := fault.RowOf(code)
	m := &session.ErrorMessage{ReqID: reqID, Code: session.ErrorCode(row.SessionCode), Message: msg, Retryable: row.Retryable}
	if d, err := json.Marshal(f.Body["details"]); err == nil && len(d) > 0 && d[0] == '{' {
		m.Detail = d // only an object: the SDK's A2EError takes no other detail
	}
	return m
}

// shutdown stops taking calls, lets those in flight finish within the
// timeout, then stops the rest, answers and ends the session.
func (ss *sessionConn) shutdown(x *session.Shutdown) {
	timeout := ss.cfg.ShutdownTimeout
	if x.Timeout > 0 {
		timeout = time.Duration(x.Timeout * float64(time.Second))
	}
	ss.drain(timeout)
	ss.send(&session.Shutdown{ReqID: x.ID})
}

// drain stops taking calls and lets those in flight finish within timeout,
// then stops the rest (each answered as cancelled).
func (ss *sessionConn) drain(timeout time.Duration) {
	ss.closing.Store(true)
	done := make(chan struct{})
	go func() { ss.calls.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		ss.cancel()
		<-done
	}
}

func anyStrings(s []string) any {
	if len(s) == 0 {
		return nil
	}
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// remarshalAny moves a value from the dispatcher's frame into a codec type.
func remarshalAny(v any, dst any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

func itoa(n int) string { return strconv.Itoa(n) }

// streamConn is MsgConn over a byte stream (stdio, TCP).
type streamConn struct {
	r      *session.Reader
	max    int // the session's line limit, once authenticated
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
}

// NewStreamConn serves a session over a reader and writer (one message per
// line); closer is closed when the session ends (may be nil). maxLine is the
// session's line limit (0: the default); the handshake is read under
// session.MaxHandshakeBytes.
func NewStreamConn(r io.Reader, w io.Writer, closer io.Closer, maxLine int) MsgConn {
	if maxLine <= 0 {
		maxLine = session.DefaultMaxLineBytes
	}
	rd := session.NewReader(r, nil, session.Limits{MaxLineBytes: min(maxLine, session.MaxHandshakeBytes)})
	return &streamConn{r: rd, max: maxLine, w: w, closer: closer}
}

func (c *streamConn) ReadLine() ([]byte, error) { return c.r.ReadLine() }

func (c *streamConn) Authenticated() { c.r.SetMaxLineBytes(c.max) }

func (c *streamConn) WriteLine(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

func (c *streamConn) Close() error {
	if c.closer != nil {
		return c.closer.Close()
	}
	return nil
}
