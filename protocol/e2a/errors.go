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

// path is a JSON path under construction, kept on the stack while decoding so
// the common case (no error) builds no strings.
type path struct {
	parent *path
	key    string
	index  int // used when key is ""
	isIdx  bool
}

func (p *path) field(k string) path { return path{parent: p, key: k} }
func (p *path) elem(i int) path     { return path{parent: p, index: i, isIdx: true} }

func (p *path) String() string {
	if p == nil {
		return ""
	}
	var parts []*path
	for q := p; q != nil; q = q.parent {
		if q.key != "" || q.isIdx {
			parts = append(parts, q)
		}
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		q := parts[i]
		switch {
		case q.isIdx:
			b.WriteString("[")
			b.WriteString(strconv.Itoa(q.index))
			b.WriteString("]")
		case isPlainKey(q.key):
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(q.key)
		default:
			b.WriteString("[")
			b.WriteString(strconv.Quote(q.key))
			b.WriteString("]")
		}
	}
	return b.String()
}

func joinPath(base, key string) string {
	p := path{key: base}
	q := p.field(key)
	return q.String()
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
