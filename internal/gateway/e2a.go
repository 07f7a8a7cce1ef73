package gateway

import (
	"net/http"
	"sync"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// e2aHandler serves POST /api/v1/e2a: one E2A envelope in, its response
// frames out as NDJSON, streamed as they are made. The key comes from the
// HTTP headers like any REST call; the envelope's own identity and auth are
// replaced by the dispatcher (RESOLUTIONS). A call refused before any frame
// was streamed gets the HTTP status of its error with the one frame as body.
func (s *Server) e2aHandler(w http.ResponseWriter, r *http.Request) {
	serveHTTP(s.dispatcher, e2aCodec{s})(w, r)
}

// e2aCodec is the E2A NDJSON ingress.
type e2aCodec struct{ s *Server }

func (ec e2aCodec) Decode(x exchange) (*Call, error) {
	s := ec.s
	c := newHTTPCall(nil, x.r.Header, "e2a")
	var env *e2a.Envelope
	b, err := s.readCallBody(x.r, c)
	if err == nil {
		var ignored []string
		env, ignored, err = e2a.DecodeEnvelopeIgnoring(b, e2a.Limits{MaxBytes: int(s.cfg.MaxBodyBytes)})
		if err != nil {
			err = fault.New(fault.Invalid, "invalid envelope: %s", err.Error())
		}
		if len(ignored) > 0 {
			// As the reference does, fields this codec does not know are
			// skipped; the names (never the values) go to the debug log.
			s.log.Debug("e2a envelope fields ignored", "requestId", x.id, "fields", ignored)
		}
	}
	if env == nil {
		env = e2a.NewEnvelope()
	}
	if env.RequestID == "" {
		env.RequestID = x.id
	}
	if env.Channel == "" {
		env.Channel = "e2a"
	}
	if env.Params == nil {
		env.Params = map[string]any{}
	}
	if err == nil && env.Method == "" {
		err = fault.New(fault.Invalid, "the envelope names no method").WithDetail("path", "method")
	}
	c.Env = env
	return c, err
}

func (ec e2aCodec) Encoder(x exchange, c *Call) Encoder { return &ndjsonSink{w: x.w, c: c} }

// ndjsonSink streams frames as NDJSON. It holds the first frame back when it
// is final, to answer with its status.
type ndjsonSink struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	c       *Call
	started bool
}

func (s *ndjsonSink) WriteFrame(f *e2a.Response) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "application/x-ndjson")
		if l := s.c.Limit; l != nil {
			setLimitHeaders(h, l)
		}
		status := http.StatusOK
		if f.IsFinal && f.Kind == e2a.KindError {
			code, _ := f.Body["code"].(string)
			status = fault.RowOf(code).HTTPStatus
		}
		s.w.WriteHeader(status)
		s.started = true
	}
	b, err := e2a.AppendResponse(nil, f)
	if err != nil {
		return err
	}
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return http.NewResponseController(s.w).Flush()
}

// Close has nothing to do: every frame was written as it came.
func (s *ndjsonSink) Close() {}
