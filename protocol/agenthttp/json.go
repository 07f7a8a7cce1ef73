package agenthttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// member is one key of a decoded JSON object: its raw value and the byte
// offset where the value starts in the whole input.
type member struct {
	key string
	raw json.RawMessage
	off int
}

// decoder reads one kind of document (what names it in errors) within
// limits.
type decoder struct {
	what string
	lim  Limits
}

// top checks size, depth and that data is one JSON object, and returns its
// members.
func (d decoder) top(data []byte) ([]member, error) {
	if len(data) > d.lim.MaxBytes {
		return nil, errorf(d.what, "", 0, "is %d bytes, over the limit of %d", len(data), d.lim.MaxBytes)
	}
	if off, ok := checkDepth(data, d.lim.MaxDepth); !ok {
		return nil, errorf(d.what, "", off, "nests deeper than %d levels", d.lim.MaxDepth)
	}
	return d.object(data, "", 0)
}

// object reads raw (which starts at byte base of the input) as a JSON object
// found at path. Duplicate keys are refused: two answers in one document is
// a document that means nothing for sure.
func (d decoder) object(raw []byte, path string, base int) ([]member, error) {
	lead := skipSpace(raw)
	if lead == len(raw) {
		return nil, errorf(d.what, path, base, "is empty; want a JSON object")
	}
	if raw[lead] != '{' {
		if !json.Valid(raw) {
			return nil, d.syntax(raw, path, base)
		}
		return nil, errorf(d.what, path, base+lead, "want a JSON object, got %s", kindOf(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, d.syntax(raw, path, base)
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, d.syntax(raw, path, base)
		}
		key, _ := tok.(string)
		at := base + int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, d.syntax(raw, join(path, key), base)
		}
		// InputOffset is just past the key; the value starts after the colon.
		off := at + valueStart(raw[at-base:])
		if seen[key] {
			return nil, errorf(d.what, join(path, key), off, "appears twice")
		}
		seen[key] = true
		out = append(out, member{key: key, raw: v, off: off})
	}
	if _, err := dec.Token(); err != nil {
		return nil, d.syntax(raw, path, base)
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorf(d.what, path, base+end+skipSpace(raw[end:]), "has data after the end of the object")
	}
	return out, nil
}

// syntax is the error for raw that is not valid JSON, at the offset the
// standard library reports.
func (d decoder) syntax(raw []byte, path string, base int) *Error {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the bad one included.
		return errorf(d.what, path, base+max(int(se.Offset)-1, 0), "is not valid JSON: %s", se.Error())
	}
	return errorf(d.what, path, base, "is not valid JSON")
}

// valueStart skips the whitespace and colon between a key and its value.
func valueStart(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == ':') {
		i++
	}
	return i
}

func skipSpace(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// checkDepth reports whether data nests arrays and objects at most max deep,
// and where it first goes deeper. It runs before decoding, so a hostile
// answer cannot make the standard library recurse far.
func checkDepth(data []byte, max int) (int, bool) {
	depth, inString, escaped := 0, false, false
	for i, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > max {
				return i, false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return 0, true
}

// kindOf names the JSON type of raw (which is valid JSON).
func kindOf(raw []byte) string {
	i := skipSpace(raw)
	if i == len(raw) {
		return "nothing"
	}
	switch raw[i] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(raw []byte) bool {
	i := skipSpace(raw)
	return bytes.Equal(bytes.TrimSpace(raw[i:]), []byte("null"))
}

func isObject(raw []byte) bool {
	i := skipSpace(raw)
	return i < len(raw) && raw[i] == '{'
}

// str reads m as a JSON string.
func (d decoder) str(m member, path string) (string, error) {
	if kindOf(m.raw) != "a string" {
		return "", errorf(d.what, path, m.off, "want a string, got %s", kindOf(m.raw))
	}
	var s string
	if err := json.Unmarshal(m.raw, &s); err != nil {
		return "", errorf(d.what, path, m.off, "is not a valid string")
	}
	if !utf8.Valid(m.raw) {
		return "", errorf(d.what, path, m.off, "is not valid UTF-8")
	}
	return s, nil
}

// optStr reads m as a string or null ("" and false for null).
func (d decoder) optStr(m member, path string) (string, bool, error) {
	if isNull(m.raw) {
		return "", false, nil
	}
	s, err := d.str(m, path)
	return s, err == nil, err
}

// integer reads m as a JSON number without a fraction, within [lo, hi].
func (d decoder) integer(m member, path string, lo, hi int64) (int64, error) {
	f, err := d.number(m, path)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, errorf(d.what, path, m.off, "want a whole number, got %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, errorf(d.what, path, m.off, "is %s; want %d to %d", strconv.FormatFloat(f, 'g', -1, 64), lo, hi)
	}
	return int64(f), nil
}

// number reads m as a finite JSON number.
func (d decoder) number(m member, path string) (float64, error) {
	if kindOf(m.raw) != "a number" {
		return 0, errorf(d.what, path, m.off, "want a number, got %s", kindOf(m.raw))
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(m.raw)), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errorf(d.what, path, m.off, "is not a finite number")
	}
	return f, nil
}

// unknown is the error for a key the document does not have.
func (d decoder) unknown(m member, path string, known ...string) *Error {
	e := errorf(d.what, join(path, m.key), m.off, "is not a known field")
	if len(known) > 0 {
		e.Message += "; known fields are " + listNames(known)
	}
	return e
}

func listNames(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

// compact returns raw without insignificant whitespace (raw is valid JSON).
func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}
