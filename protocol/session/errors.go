package session

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// Error is a line the codec could not take: not JSON, not a message, a known
// type with bad fields, another major version, a line over the size limit. Code
// says which (parse_error, invalid_message, schema_violation,
// version_mismatch); the session goes on after it, and Reply makes the `error`
// message that answers it.
//
// Path names the field (a JSON path such as "data.success" or "tools[2].name").
// Messages never hold a field's value: a handshake's auth_token is a secret,
// and a tool's arguments may be.
//
// It is the codec's own type rather than internal/fault's because protocol
// packages import only the standard library and their siblings.
type Error struct {
	Code        ErrorCode `json:"code"`
	Message     string    `json:"message"`
	Path        string    `json:"path,omitempty"`   // "" means the whole message
	Offset      int       `json:"offset,omitempty"` // 0-based byte offset in the line, when known
	Line        int64     `json:"line,omitempty"`   // 1-based line of the stream; set by Reader
	ID          string    `json:"id,omitempty"`     // the message's id when it could be read, for req_id
	Type        string    `json:"type,omitempty"`   // the message's type when it could be read
	Suggestions []string  `json:"suggestions,omitempty"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("session: ")
	if e.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.FormatInt(e.Line, 10))
		b.WriteString(": ")
	}
	if e.Type != "" {
		b.WriteString(e.Type)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	for _, s := range e.Suggestions {
		b.WriteString("; ")
		b.WriteString(s)
	}
	return b.String()
}

// Reply is the `error` message answering the line e is about: req_id is the
// line's id when it could be read, and detail holds the path, line, byte offset
// and suggestions. The caller's Writer stamps it.
func (e *Error) Reply() *ErrorMessage {
	detail := map[string]any{}
	if e.Path != "" {
		detail["path"] = e.Path
	}
	if e.Line > 0 {
		detail["line"] = e.Line
	}
	if e.Offset > 0 {
		detail["offset"] = e.Offset
	}
	if len(e.Suggestions) > 0 {
		detail["suggestions"] = e.Suggestions
	}
	msg := e.Message
	if e.Path != "" {
		msg = e.Path + ": " + msg
	}
	if e.Type != "" {
		msg = e.Type + ": " + msg
	}
	m := &ErrorMessage{ReqID: e.ID, Code: e.Code, Message: msg}
	if len(detail) > 0 {
		m.Detail, _ = json.Marshal(detail) // plain values: cannot fail
	}
	return m
}

func errorf(code ErrorCode, path string, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
}

// under prefixes err's path with the object key it was found under, as the
// error travels out of nested values: "name" under "[2]" under "tools" reads
// tools[2].name. Paths are built only when something is wrong.
func under(err error, key string) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	seg := key
	if !plainKey(key) {
		seg = "[" + strconv.Quote(key) + "]"
	}
	switch {
	case e.Path == "":
		e.Path = seg
	case e.Path[0] == '[':
		e.Path = seg + e.Path
	default:
		e.Path = seg + "." + e.Path
	}
	return e
}

// underIndex prefixes err's path with an array index.
func underIndex(err error, i int) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	seg := "[" + strconv.Itoa(i) + "]"
	if e.Path == "" || e.Path[0] == '[' {
		e.Path = seg + e.Path
	} else {
		e.Path = seg + "." + e.Path
	}
	return e
}

func plainKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// didYouMean suggests the candidate nearest to s, or nothing.
func didYouMean(s string, candidates []string) []string {
	if len(s) > 64 {
		return nil
	}
	best, bestDist := "", -1
	for _, c := range candidates {
		d := a2e.EditDistance(strings.ToLower(s), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(best)/3) {
		return nil
	}
	return []string{fmt.Sprintf("did you mean %q?", best)}
}
