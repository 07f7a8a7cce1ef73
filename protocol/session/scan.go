package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// This file finds the parts of a line that encoding/json has already checked
// (json.Valid): the members of an object, the elements of an array, where a
// value ends. Knowing the input is valid JSON keeps it small: it matches
// brackets and skips strings, and never decides what is JSON. It bounds
// nesting, which json.Valid allows to 10000 levels.

// member is one object member: its key as in the input (escapes and all) and
// the byte span of its value.
type member struct {
	key        []byte
	esc        bool // the key has escapes; decode it with keyString
	keyOff     int
	start, end int // the value is data[start:end]
}

type scanner struct {
	data     []byte
	maxDepth int
	deep     *Error // the first value nested deeper than maxDepth, if any
}

func (s *scanner) ws(i int) int {
	for i < len(s.data) {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the end of the string starting at i (its opening quote).
func (s *scanner) stringEnd(i int) int {
	for j := i + 1; j < len(s.data); {
		switch s.data[j] {
		case '\\':
			j += 2
		case '"':
			return j + 1
		default:
			j++
		}
	}
	return len(s.data)
}

// valueEnd returns the end of the value starting at i, which sits at nesting
// level depth (the message itself is at level 1). A value nested deeper than
// maxDepth is recorded in s.deep (the first one only) and scanning goes on to
// its end, so that the message's id and type can still be read and the error
// that answers it carry them. Matching brackets is a loop, not recursion:
// depth costs no stack here.
func (s *scanner) valueEnd(i, depth int) int {
	switch s.data[i] {
	case '"':
		return s.stringEnd(i)
	case '{', '[':
		level := depth
		if level > s.maxDepth {
			s.tooDeep(i)
		}
		for j := i + 1; j < len(s.data); j++ {
			switch s.data[j] {
			case '"':
				j = s.stringEnd(j) - 1
			case '{', '[':
				level++
				if level > s.maxDepth {
					s.tooDeep(j)
				}
			case '}', ']':
				if level == depth {
					return j + 1
				}
				level--
			}
		}
		return len(s.data)
	default: // number, true, false, null
		j := i
		for j < len(s.data) {
			switch s.data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// tooDeep records the first place where the nesting goes over the limit.
func (s *scanner) tooDeep(off int) {
	if s.deep == nil {
		s.deep = errorf(CodeInvalidMessage, "", "nested deeper than %d levels", s.maxDepth)
		s.deep.Offset = off
	}
}

// members appends the members of the object starting at i (at level depth)
// to dst. A member nested too deep is recorded in s.deep under its key.
func (s *scanner) members(i, depth int, dst []member) []member {
	j := s.ws(i + 1)
	if s.data[j] == '}' {
		return dst
	}
	for {
		ke := s.stringEnd(j)
		key := s.data[j+1 : ke-1]
		m := member{key: key, esc: bytes.IndexByte(key, '\\') >= 0, keyOff: j}
		m.start = s.ws(s.ws(ke) + 1) // past the colon
		wasDeep := s.deep != nil
		m.end = s.valueEnd(m.start, depth+1)
		if !wasDeep && s.deep != nil {
			_ = under(s.deep, s.keyString(&m))
		}
		dst = append(dst, m)
		j = s.ws(m.end)
		if s.data[j] == '}' {
			return dst
		}
		j = s.ws(j + 1) // past the comma
	}
}

// elements calls fn with the span of each element of the array starting at i.
func (s *scanner) elements(i, depth int, fn func(n, start, end int) error) error {
	j := s.ws(i + 1)
	if s.data[j] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		wasDeep := s.deep != nil
		end := s.valueEnd(j, depth+1)
		if !wasDeep && s.deep != nil {
			_ = underIndex(s.deep, n)
		}
		if err := fn(n, j, end); err != nil {
			return underIndex(err, n)
		}
		j = s.ws(end)
		if s.data[j] == ']' {
			return nil
		}
		j = s.ws(j + 1)
	}
}

// keyString is m's key as a Go string.
func (s *scanner) keyString(m *member) string {
	if !m.esc {
		return string(m.key)
	}
	var k string
	_ = json.Unmarshal(s.data[m.keyOff:m.keyOff+len(m.key)+2], &k) // valid JSON string
	return k
}

// str is the string value spanning data[start:end] (quotes included).
func (s *scanner) str(start, end int) string {
	inner := s.data[start+1 : end-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var v string
	_ = json.Unmarshal(s.data[start:end], &v) // valid JSON string
	return v
}

// kindAt names the JSON type of the value starting at i.
func (s *scanner) kindAt(i int) string {
	switch s.data[i] {
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

// checkSyntax returns a parse_error for a line that is not UTF-8 or not
// JSON, naming the byte where it goes wrong.
func checkSyntax(line []byte) *Error {
	if !utf8.Valid(line) {
		off := 0
		for off < len(line) {
			r, n := utf8.DecodeRune(line[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		e := errorf(CodeParseError, "", "not valid UTF-8 at byte %d", off)
		e.Offset = off
		return e
	}
	if json.Valid(line) {
		return nil
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return errorf(CodeParseError, "", "not JSON: the line is empty")
	}
	if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
		return errorf(CodeParseError, "", "not JSON: the line starts with a byte order mark (U+FEFF); send UTF-8 without one")
	}
	var raw json.RawMessage
	err := json.Unmarshal(line, &raw)
	e := errorf(CodeParseError, "", "not JSON")
	if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
		e.Message = "not JSON: " + se.Error()
		// SyntaxError.Offset counts the bytes read, the bad one included;
		// Error.Offset is the bad byte's 0-based place. At the end of the
		// input it is the place where more was expected: len(line).
		e.Offset = int(se.Offset)
		if !strings.HasPrefix(se.Error(), "unexpected end") {
			e.Offset--
		}
		e.Offset = max(0, min(e.Offset, len(line)))
	}
	return e
}
