package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
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
	return func(w http.ResponseWriter, r *http.Request) {
		c, decodeErr := s.restCall(r, rt)
		w.Header().Set("X-Request-ID", c.Env.RequestID)
		final := &finalSink{}
		s.dispatcher.Dispatch(r.Context(), c.withDecodeError(decodeErr), final)
		s.writeFinal(w, rt, c, final.frame)
	}
}

// restCall decodes r into a call. A decode problem is kept for the
// dispatcher, which reports it after authentication: a caller without a key
// learns nothing about what it sent.
func (s *Server) restCall(r *http.Request, rt route) (*Call, error) {
	env := e2a.NewEnvelope()
	env.RequestID = requestID(r)
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

// withDecodeError keeps err for the dispatcher (see restCall).
func (c *Call) withDecodeError(err error) *Call {
	c.decodeErr = err
	return c
}

// writeFinal renders the final frame as the spec's response.
func (s *Server) writeFinal(w http.ResponseWriter, rt route, c *Call, f *e2a.Response) {
	h := w.Header()
	if c.Limit != nil {
		h.Set("X-RateLimit-Limit", strconv.Itoa(c.Limit.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(max(c.Limit.Remaining, 0)))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(c.Limit.Reset.Unix(), 10))
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
	code, _ := f.Body["code"].(string)
	status := httpStatus(code)
	details := f.Body["details"]
	switch code {
	case fault.RateLimited.String():
		if m, ok := details.(map[string]any); ok {
			if secs, ok := m["retry_after"].(int); ok {
				h.Set("Retry-After", strconv.Itoa(secs))
			}
			writeJSON(w, status, m)
			return
		}
	case codeInvalidWorkflow:
		writeJSON(w, status, details)
		return
	}
	if details == nil {
		msg, _ := f.Body["message"].(string)
		details = fault.New(fault.Internal, "%s", msg).Object()
	}
	writeJSON(w, status, map[string]any{"error": details})
}

// metaHTTPStatus lets a REST-facing service choose the success status of a
// call whose route cannot know it in advance (an asynchronous execute is
// 202). Other codecs ignore it.
const metaHTTPStatus = "http_status"

func errorObject(o fault.Object) map[string]any { return map[string]any{"error": o} }

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
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

// finalSink keeps the final frame; a REST answer is that frame alone.
type finalSink struct{ frame *e2a.Response }

func (s *finalSink) WriteFrame(r *e2a.Response) error {
	if r.IsFinal {
		s.frame = r
	}
	return nil
}

// requestID is the caller's X-Request-ID when it is a sane token, else a new one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-ID"); id != "" && len(id) <= 128 && isToken(id) {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req-" + hex.EncodeToString(b[:])
}

func isToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:", c)) {
			return false
		}
	}
	return true
}
