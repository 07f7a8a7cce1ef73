package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/sluicehq/sluice/internal/fault"
)

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

// decodeObject decodes a JSON object body. Malformed JSON names its line and
// column; anything but an object, or data after it, is an error too. Numbers
// decode as float64, as everywhere in the engine's data model.
func decodeObject(b []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxFault(b, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		line, col := position(b, dec.InputOffset())
		return nil, fault.New(fault.Invalid, "malformed JSON at line %d, column %d: data after the object", line, col).
			WithDetail("line", line).WithDetail("column", col)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fault.New(fault.Invalid, "the request body must be a JSON object").
			WithSuggestions(`Send {"workflow": "..."}-style objects`)
	}
	return m, nil
}

// syntaxFault names where a JSON document broke.
func syntaxFault(b []byte, err error) *fault.Error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &se):
		off = max(se.Offset-1, 0) // Offset is just past the offending byte
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(b))
	default:
		return fault.New(fault.Invalid, "malformed JSON: %s", err.Error())
	}
	line, col := position(b, off)
	return fault.New(fault.Invalid, "malformed JSON at line %d, column %d: %s", line, col, cleanJSONError(err)).
		WithDetail("line", line).WithDetail("column", col)
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
