package e2a

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// Error is one problem with an envelope, a frame or an adapter's input. It names
// the field (a JSON path such as "params.files[0].uri") and, when the problem is
// in decoded bytes, the byte offset. Messages never hold a field's value when the
// field may be secret.
//
// It is the codec's own type rather than internal/fault's because protocol
// packages import only the standard library and their siblings; callers wrap it
// as fault.Invalid with Path as the path.
type Error struct {
	Path        string   `json:"path,omitempty"`   // "" means the whole value
	Offset      int      `json:"offset,omitempty"` // 0-based byte offset in the input; 0 also when not known
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions,omitempty"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("e2a: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Offset > 0 {
		b.WriteString(" (at byte ")
		b.WriteString(strconv.Itoa(e.Offset))
		b.WriteString(")")
	}
	for _, s := range e.Suggestions {
		b.WriteString("; ")
		b.WriteString(s)
	}
	return b.String()
}

func errorf(path string, format string, args ...any) *Error {
	return &Error{Path: path, Message: fmt.Sprintf(format, args...)}
}

// didYouMean suggests the candidate nearest to s, or nothing.
func didYouMean(s string, candidates []string) []string {
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

// under prefixes err's path with the object key it was found under, as the
// error travels out of nested values: "uri" under "[1]" under "files" under
// "params" reads params.files[1].uri.
func under(err error, key string) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	seg := key
	if !isPlainKey(key) {
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

func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
