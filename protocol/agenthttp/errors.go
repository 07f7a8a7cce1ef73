package agenthttp

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is one problem with a request, a response, a registry entry or a
// queue message. It names the field (a path such as "auth_config.token" or
// "retry_config.max_retries") and, when known, the byte offset in the input.
// Messages never hold the value of a field that may be secret.
//
// It is the codec's own type because protocol packages import only the
// standard library; callers wrap it as a fault.Invalid (or, for an agent's
// answer, an upstream failure).
type Error struct {
	What    string `json:"what"`             // "response", "request", "entry", "task message", ...
	Path    string `json:"path,omitempty"`   // "" means the whole value
	Offset  int    `json:"offset,omitempty"` // 0-based byte offset; 0 also when not known
	Message string `json:"message"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("agenthttp: ")
	b.WriteString(e.What)
	if e.Path != "" {
		b.WriteString(": field ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Offset > 0 {
		b.WriteString(" (at byte ")
		b.WriteString(strconv.Itoa(e.Offset))
		b.WriteString(")")
	}
	return b.String()
}

func errorf(what, path string, off int, format string, args ...any) *Error {
	return &Error{What: what, Path: path, Offset: off, Message: fmt.Sprintf(format, args...)}
}

// join appends key to a path: "auth_config" + "token" = "auth_config.token".
// Keys that are not plain names are quoted in brackets.
func join(path, key string) string {
	seg := key
	if !plainKey(key) {
		seg = "[" + strconv.Quote(key) + "]"
		if path == "" {
			return seg
		}
		return path + seg
	}
	if path == "" {
		return seg
	}
	return path + "." + seg
}

func plainKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// quoteShort quotes s for a message, cut to 64 bytes. Only for values that
// cannot be secret (field names, statuses, types).
func quoteShort(s string) string {
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:64], "") + "…"
	}
	return strconv.Quote(s)
}
