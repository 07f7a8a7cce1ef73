package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The REST codec: an HTTP request becomes an envelope whose params are the
// JSON body's fields, the path's wildcards and the query's parameters; the
// final frame becomes the spec's JSON with its status code. It decides nothing:
// the dispatcher does.

// pathParams names each path wildcard's parameter.
var pathParams = map[string]string{"id": "id", "key_id": "key_id", "path": "path"}

// restHandler serves one route through the dispatcher.
func (s *Server) restHandler(rt route) http.HandlerFunc {
	return serveHTTP(s.dispatcher, restCodec{s: s, rt: rt})
}

// restCodec is the REST ingress of one route.
type restCodec struct {
	s  *Server
	rt route
}

func (rc restCodec) Decode(x exchange) (*Call, error) { return rc.s.restCall(x, rc.rt) }

func (rc restCodec) Encoder(x exchange, c *Call) Encoder {
	return &restEncoder{w: x.w, rt: rc.rt, c: c}
}

// restEncoder keeps the final frame; a REST answer is that frame alone,
// written at Close.
type restEncoder struct {
	w     http.ResponseWriter
	rt    route
	c     *Call
	final *e2a.Response
}

func (e *restEncoder) WriteFrame(f *e2a.Response) error {
	if f.IsFinal {
		e.final = f
	}
	return nil
}

func (e *restEncoder) Close() { writeFinal(e.w, e.rt, e.c, e.final) }

// restCall decodes x's request into a call. A decode problem is kept for the
// dispatcher, which reports it after authentication: a caller without a key
// learns nothing about what it sent.
func (s *Server) restCall(x exchange, rt route) (*Call, error) {
	r := x.r
	env := e2a.NewEnvelope()
	env.RequestID = x.id
	env.Method = rt.rpc
	env.Channel = "rest"
	env.SessionID = r.Header.Get("X-Sluice-Session")
	env.Timestamp = e2a.Time(s.clock.Now())
	c := newHTTPCall(env, r.Header, "rest")
	params := map[string]any{}
	if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		b, err := s.readCallBody(r, c)
		if err != nil {
			env.Params = params
			return c, err
		}
		if params, err = decodeObject(b, s.cfg.MaxBodyBytes); err != nil {
			env.Params = map[string]any{}
			return c, err
		}
	}
	for k, vs := range r.URL.Query() {
		if _, clash := params[k]; clash {
			env.Params = params
			return c, fault.New(fault.Invalid, "params.%s is given both in the query and in the body", k)
		}
		params[k] = vs[len(vs)-1]
	}
	for wildcard, name := range pathParams {
		if v := r.PathValue(wildcard); v != "" {
			params[name] = v
		}
	}
	env.Params = params
	return c, nil
}

// writeFinal renders the final frame as the spec's response.
func writeFinal(w http.ResponseWriter, rt route, c *Call, f *e2a.Response) {
	if c.Limit != nil {
		setLimitHeaders(w.Header(), c.Limit)
	}
	if f == nil {
		// The client went away before an answer (the sink failed), or a defect.
		writeJSON(w, http.StatusInternalServerError, errorObject(fault.New(fault.Internal, "no answer was produced").Object()))
		return
	}
	if f.Kind == e2a.KindComplete {
		status := rt.okStatus
		if status == 0 {
			status = http.StatusOK
		}
		if st, ok := f.Metadata[metaHTTPStatus].(int); ok {
			status = st
		}
		writeJSON(w, status, f.Body["result"])
		return
	}
	writeError(w, f)
}

// writeError is REST's renderer of an e2a.error frame: the status is its
// code's row in fault's table. Details that are the spec's error object go
// under "error"; details that are a body of their own (the spec's 429 body,
// a validate report) are the whole answer.
func writeError(w http.ResponseWriter, f *e2a.Response) {
	code, _ := f.Body["code"].(string)
	status := fault.RowOf(code).HTTPStatus
	switch d := f.Body["details"].(type) {
	case fault.Object:
		writeJSON(w, status, errorObject(d))
	case nil:
		msg, _ := f.Body["message"].(string)
		writeJSON(w, status, errorObject(fault.New(fault.Internal, "%s", msg).Object()))
	case map[string]any:
		if secs, ok := d["retry_after"].(int); ok {
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
		writeJSON(w, status, d)
	default:
		writeJSON(w, status, d)
	}
}

// setLimitHeaders writes the request-limit decision the call was admitted
// under (REST, and the streams of E2A and SSE).
func setLimitHeaders(h http.Header, l *LimitStatus) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(l.Remaining, 0)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(l.Reset.Unix(), 10))
}

// metaHTTPStatus lets a REST-facing service choose the success status of a
// call whose route cannot know it in advance (an asynchronous execute is
// 202). Other codecs ignore it.
const metaHTTPStatus = "http_status"

func errorObject(o fault.Object) map[string]any { return map[string]any{"error": o} }

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if pieces, ok := v.(io.WriterTo); ok {
		// JSON in pieces (an execution read back: its results as stored),
		// written without joining them.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = pieces.WriteTo(w)
		_, _ = w.Write([]byte{'\n'})
		return
	}
	var b []byte
	var err error
	if raw, ok := v.(json.RawMessage); ok {
		b = raw // encoded once by the service (an execution's result)
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"type":"ExecutionError","message":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// requestID is the caller's X-Request-ID when it is a sane token, else a new one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-ID"); id != "" && len(id) <= 128 && isToken(id) {
		return id
	}
	return ids.New(ids.Request)
}

func isToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:", c)) {
			return false
		}
	}
	return true
}
