package e2a

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// FrameSink is where a StreamWriter's frames go: an HTTP NDJSON body, an SSE
// stream, a session connection, a test's slice. WriteFrame is called with the
// writer's lock held, so frames arrive in sequence order; it may keep the frame.
// A sink shared by several writers must be safe for concurrent use.
type FrameSink interface {
	WriteFrame(r *Response) error
}

// SinkFunc adapts a function to FrameSink.
type SinkFunc func(r *Response) error

// WriteFrame calls f.
func (f SinkFunc) WriteFrame(r *Response) error { return f(r) }

// NDJSONSink writes each frame as one JSON line to w. It is safe for concurrent
// use (one lock per sink), so writers of several requests may share it.
type NDJSONSink struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewNDJSONSink returns a sink writing NDJSON frames to w.
func NewNDJSONSink(w io.Writer) *NDJSONSink { return &NDJSONSink{w: w} }

// WriteFrame writes r and a newline in one Write call.
func (s *NDJSONSink) WriteFrame(r *Response) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := AppendResponse(s.buf[:0], r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	s.buf = b
	_, err = s.w.Write(b)
	return err
}

// StreamOptions tune a StreamWriter. Zero values take the defaults.
type StreamOptions struct {
	// Now stamps each frame's timestamp; default time.Now. Tests pass a fixed clock.
	Now func() time.Time
	// NewID makes each frame's response_id; default a random UUID (version 4).
	NewID func() string
	// Provenance of the frames; default {source_protocol: "e2a"}.
	Provenance Provenance
}

// Errors of a StreamWriter.
var (
	// ErrStreamFinished: a frame was written after the final one.
	ErrStreamFinished = errors.New("e2a: the stream already has its final frame")
	// ErrNoRequestID: frames align on request_id, so a stream needs one.
	ErrNoRequestID = errors.New("e2a: the request has no request_id")
)

// StreamWriter writes the frames answering one request and keeps the
// invariants of §12.3: sequence starts at 0 and rises by 1, exactly one frame is
// final, nothing follows it. It stamps response_id, timestamp and sequence,
// echoes the request's correlation fields (request_id, jsonrpc_id,
// correlation_id, task_id, context_id, session_id, message_id, is_stream,
// channel, user_id, agent_ref, source_agent_id, method) into every field the
// frame leaves empty, and checks each frame before it goes out. It is safe for
// concurrent use.
//
// Use Chunk, Complete and Fail for sluice's own frames, Write for any frame
// (e.g. from FrameFromACP), and Close when the handler returns: it writes a
// final internal error frame when none was written, so a client always sees an
// end.
type StreamWriter struct {
	mu    sync.Mutex
	sink  FrameSink
	opts  StreamOptions
	echo  Response
	seq   int64
	final bool
	err   error // sticky: once the sink failed, nothing more is written
}

// NewStreamWriter returns a writer for the frames answering req.
func NewStreamWriter(req *Envelope, sink FrameSink, opts StreamOptions) (*StreamWriter, error) {
	if req.RequestID == "" {
		return nil, ErrNoRequestID
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = NewUUID
	}
	if opts.Provenance.SourceProtocol == "" {
		opts.Provenance.SourceProtocol = SourceE2A
	}
	return &StreamWriter{sink: sink, opts: opts, echo: Response{
		RequestID: req.RequestID, JSONRPCID: req.JSONRPCID, CorrelationID: req.CorrelationID,
		TaskID: req.TaskID, ContextID: req.ContextID, SessionID: req.SessionID, MessageID: req.MessageID,
		IsStream: req.IsStream, Channel: req.Channel, UserID: req.UserID, AgentRef: req.AgentRef,
		SourceAgentID: req.SourceAgentID, Method: req.Method,
	}}, nil
}

// Write stamps and writes r. r's sequence, response_id and timestamp are set by
// the writer; its request_id must be empty or the request's. A frame that
// breaks the rules of CheckFrame (an unknown kind, a final in_progress frame, a
// chunk without delta_kind, ...) is refused and nothing is written.
func (w *StreamWriter) Write(r *Response) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(r)
}

func (w *StreamWriter) write(r *Response) error {
	switch {
	case w.err != nil:
		return w.err
	case w.final:
		return ErrStreamFinished
	case r.RequestID != "" && r.RequestID != w.echo.RequestID:
		return fmt.Errorf("e2a: frame for request %q written to the stream of %q", r.RequestID, w.echo.RequestID)
	}
	f := *r
	w.fill(&f)
	if err := CheckFrame(&f); err != nil {
		return err
	}
	if err := w.sink.WriteFrame(&f); err != nil {
		w.err = fmt.Errorf("e2a: writing frame %d: %w", f.Sequence, err)
		return w.err
	}
	w.seq++
	w.final = f.IsFinal
	return nil
}

// fill sets what the writer owns and echoes the request into empty fields.
func (w *StreamWriter) fill(f *Response) {
	e := &w.echo
	f.ProtocolVersion = orDefault(f.ProtocolVersion, ProtocolVersion)
	f.ResponseID = w.opts.NewID()
	f.RequestID = e.RequestID
	f.Sequence = w.seq
	f.Timestamp = Time(w.opts.Now())
	if f.Provenance.SourceProtocol == "" {
		f.Provenance = w.opts.Provenance
	}
	if f.Status == "" {
		f.Status = StatusInProgress
	}
	if f.IdentityOrigin == "" {
		f.IdentityOrigin = OriginAgent
	}
	if f.JSONRPCID.IsNull() {
		f.JSONRPCID = e.JSONRPCID
	}
	for _, p := range []struct {
		dst *string
		src string
	}{
		{&f.CorrelationID, e.CorrelationID}, {&f.TaskID, e.TaskID}, {&f.ContextID, e.ContextID},
		{&f.SessionID, e.SessionID}, {&f.MessageID, e.MessageID}, {&f.Channel, e.Channel},
		{&f.UserID, e.UserID}, {&f.SourceAgentID, e.SourceAgentID}, {&f.Method, e.Method},
	} {
		if *p.dst == "" {
			*p.dst = p.src
		}
	}
	f.IsStream = f.IsStream || e.IsStream
	if f.AgentRef == nil {
		f.AgentRef = e.AgentRef
	}
}

// Chunk writes a non-final e2a.chunk frame.
func (w *StreamWriter) Chunk(deltaKind string, delta any) error {
	return w.Write(ChunkFrame(deltaKind, delta))
}

// Complete writes the final e2a.complete frame with body.result.
func (w *StreamWriter) Complete(result any) error { return w.Write(CompleteFrame(result)) }

// Fail writes the final e2a.error frame {code, message, details}.
func (w *StreamWriter) Fail(code, message string, details any) error {
	return w.Write(ErrorFrame(code, message, details))
}

// Finished reports whether the final frame has been written.
func (w *StreamWriter) Finished() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.final
}

// Sequence is the sequence the next frame will get (the number written so far).
func (w *StreamWriter) Sequence() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Close ends the stream: when no final frame was written (the handler returned
// early or panicked past a recover), it writes a final e2a.error with code
// "internal", so exactly one final frame goes out. It returns the sink's error,
// if any; closing a finished stream does nothing.
func (w *StreamWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.final {
		return nil
	}
	if w.err != nil {
		return w.err
	}
	return w.write(ErrorFrame("internal", "the call ended without a result", nil))
}

// NewUUID returns a random RFC 4122 version 4 UUID, the default response_id.
func NewUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}
