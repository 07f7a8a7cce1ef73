package gateway

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// preAuthBodyBytes bounds what is read of a request body before its key is
// authenticated. A public method's parameters fit; a caller without a valid
// key cannot make the server hold max_body_bytes per connection.
const preAuthBodyBytes = 64 << 10

// newHTTPCall is the call of an HTTP request with the key its headers
// present, read by policy.PresentedKey, the one reader of keys: a request
// with two keys is refused there, whatever ingress it came through.
func newHTTPCall(env *e2a.Envelope, h http.Header, transport string) *Call {
	key, err := policy.PresentedKey(h)
	return &Call{Env: env, Key: key, keyErr: err, Transport: transport}
}

// readCallBody reads the body of c's request: up to max_body_bytes once c's
// key is authenticated, and up to preAuthBodyBytes without a valid key (a
// method that needs one refuses the call whatever the body holds).
func (s *Server) readCallBody(r *http.Request, c *Call) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	s.dispatcher.Preauthenticate(r.Context(), c)
	if c.Principal == nil && s.cfg.MaxBodyBytes > preAuthBodyBytes {
		b, err := readBody(r, preAuthBodyBytes)
		if fe, ok := fault.As(err); ok && fe.Kind == fault.TooLarge {
			err = fault.New(fault.TooLarge, "the request body is larger than %d bytes, the bound before authentication", int64(preAuthBodyBytes)).
				WithDetail("limitBytes", int64(preAuthBodyBytes)).
				WithSuggestions("Send a valid API key: authenticated calls may send up to the server's max_body_bytes")
		}
		return b, err
	}
	return readBody(r, s.cfg.MaxBodyBytes)
}

// readBody reads a request body of at most limit bytes. Over the limit is a
// TooLarge fault (413); the body is never read past limit+1.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		return nil, fault.New(fault.Invalid, "the request body could not be read").WithCause(err)
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(limit)
	}
	return b, nil
}

func tooLarge(limit int64) *fault.Error {
	return fault.New(fault.TooLarge, "the request body is larger than %d bytes", limit).
		WithDetail("limitBytes", limit).
		WithSuggestions("Send a smaller document; the limit is the server's max_body_bytes")
}

// decodeObject decodes a JSON object body with e2a.DecodeObject, the one
// decoder of JSON bodies (the E2A endpoint's envelopes are read by the same
// rules): a duplicate key at any depth is refused, never "the last one
// wins". Every problem names its line and column; numbers decode as
// float64, as everywhere in the engine's data model. maxBytes bounds it
// (the body was read under that bound already).
func decodeObject(b []byte, maxBytes int64) (map[string]any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}, nil
	}
	m, err := e2a.DecodeObject(b, e2a.Limits{MaxBytes: int(maxBytes)})
	if err == nil {
		return m, nil
	}
	var e *e2a.Error
	if !errors.As(err, &e) {
		return nil, fault.New(fault.Invalid, "malformed JSON: %s", err.Error())
	}
	line, col := position(b, int64(e.Offset))
	fe := fault.New(fault.Invalid, "malformed JSON at line %d, column %d: %s", line, col, strings.TrimPrefix(e.Message, "invalid JSON: "))
	switch {
	case e.Message == "duplicate key":
		fe = fault.New(fault.Invalid, "duplicate key %s in the request body at line %d, column %d", e.Path, line, col).
			WithSuggestions("Send each key once in an object: JSON readers disagree on which of two values counts")
	case e.Path == "" && strings.HasPrefix(e.Message, "must be an object"):
		fe = fault.New(fault.Invalid, "the request body must be a JSON object").
			WithSuggestions(`Send {"workflow": "..."}-style objects`)
	case e.Path != "":
		fe = fault.New(fault.Invalid, "malformed JSON at line %d, column %d, at %s: %s", line, col, e.Path, strings.TrimPrefix(e.Message, "invalid JSON: "))
	}
	if e.Path != "" {
		fe = fe.WithDetail("path", e.Path)
	}
	return nil, fe.WithDetail("line", line).WithDetail("column", col)
}

// cleanJSONError drops encoding/json's "json: " prefix.
func cleanJSONError(err error) string {
	msg := err.Error()
	if len(msg) > 6 && msg[:6] == "json: " {
		msg = msg[6:]
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input"
	}
	return msg
}

// position turns a byte offset into a 1-based line and column (in bytes).
func position(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
