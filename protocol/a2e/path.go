package a2e

import (
	"fmt"
	"strconv"
	"strings"
)

// Roots of the data model.
const (
	RootWorkflow = "workflow"
	RootInput    = "input"
)

// Segment is one step of a path: an object key or an array index.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path is a parsed data-model path. Root is "workflow" or "input" for absolute
// paths and "" for a field path relative to an item.
type Path struct {
	Root     string
	Segments []Segment
}

// PathError says where a path is malformed.
type PathError struct {
	Path   string
	Offset int // byte offset of the problem
	Reason string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("invalid path %q at offset %d: %s", e.Path, e.Offset, e.Reason)
}

// MaxPathLength bounds a path's text.
const MaxPathLength = 1024

// ParsePath parses an absolute path: "/workflow/" and a key, then any number of
// "[n]", ".field" or "/key" segments (RESOLUTIONS), or "/input" with the same tail.
func ParsePath(s string) (Path, error) {
	if len(s) > MaxPathLength {
		return Path{}, &PathError{s, MaxPathLength, "path is too long"}
	}
	var p Path
	var rest string
	switch {
	case strings.HasPrefix(s, "/workflow/"):
		p.Root, rest = RootWorkflow, s[len("/workflow/"):]
		key, n := scanKey(rest)
		if n == 0 {
			return Path{}, &PathError{s, len("/workflow/"), "expected a key of letters, digits, '_' or '-' after /workflow/"}
		}
		p.Segments = append(p.Segments, Segment{Key: key})
		rest = rest[n:]
	case s == "/input":
		return Path{Root: RootInput}, nil
	case strings.HasPrefix(s, "/input/") || strings.HasPrefix(s, "/input.") || strings.HasPrefix(s, "/input["):
		p.Root, rest = RootInput, s[len("/input"):]
	case s == "/workflow":
		return Path{}, &PathError{s, len(s), "expected /workflow/<key>"}
	default:
		return Path{}, &PathError{s, 0, "path must start with /workflow/ or /input"}
	}
	segs, err := parseTail(s, len(s)-len(rest), rest)
	if err != nil {
		return Path{}, err
	}
	p.Segments = append(p.Segments, segs...)
	return p, nil
}

// ParseField parses a path relative to an item: a key, then "[n]", ".field" or
// "/key" segments ("profile.age", "tags[0]", "a/b"). The empty string is the item.
func ParseField(s string) (Path, error) {
	if len(s) > MaxPathLength {
		return Path{}, &PathError{s, MaxPathLength, "field path is too long"}
	}
	if s == "" {
		return Path{}, nil
	}
	var p Path
	rest := s
	if rest[0] != '[' {
		key, n := scanKey(rest)
		if n == 0 {
			return Path{}, &PathError{s, 0, "expected a field name"}
		}
		p.Segments = append(p.Segments, Segment{Key: key})
		rest = rest[n:]
	}
	segs, err := parseTail(s, len(s)-len(rest), rest)
	if err != nil {
		return Path{}, err
	}
	p.Segments = append(p.Segments, segs...)
	return p, nil
}

func parseTail(full string, off int, rest string) ([]Segment, error) {
	var segs []Segment
	for len(rest) > 0 {
		switch rest[0] {
		case '.', '/':
			key, n := scanKey(rest[1:])
			if n == 0 {
				return nil, &PathError{full, off + 1, fmt.Sprintf("expected a key after %q", rest[0])}
			}
			segs = append(segs, Segment{Key: key})
			off, rest = off+1+n, rest[1+n:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, &PathError{full, off, "unclosed '['"}
			}
			digits := rest[1:end]
			i, err := strconv.Atoi(digits)
			// Only plain decimal digits: Atoi alone would also take "+1" and "-0".
			if err != nil || !allDigits(digits) || (len(digits) > 1 && digits[0] == '0') {
				return nil, &PathError{full, off + 1, fmt.Sprintf("array index %q is not a non-negative integer", digits)}
			}
			segs = append(segs, Segment{Index: i, IsIndex: true})
			off, rest = off+end+1, rest[end+1:]
		default:
			return nil, &PathError{full, off, fmt.Sprintf("unexpected %q; expected '.', '/' or '['", rest[0])}
		}
	}
	return segs, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// scanKey returns the leading key of s ([A-Za-z0-9_-]+) and its length.
func scanKey(s string) (string, int) {
	n := 0
	for n < len(s) && isKeyByte(s[n]) {
		n++
	}
	return s[:n], n
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// String writes p in canonical form: "/workflow/a.b[0]", "/input/x", "a.b[0]".
func (p Path) String() string {
	var b strings.Builder
	switch p.Root {
	case RootWorkflow:
		b.WriteString("/workflow")
	case RootInput:
		b.WriteString("/input")
	}
	for i, s := range p.Segments {
		switch {
		case s.IsIndex:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case p.Root != "" && i == 0:
			b.WriteString("/" + s.Key)
		case p.Root == "" && i == 0:
			b.WriteString(s.Key)
		default:
			b.WriteString("." + s.Key)
		}
	}
	return b.String()
}

// HasPrefix reports whether q is p or lies inside p (same root, p's segments first).
func (p Path) HasPrefix(q Path) bool {
	if p.Root != q.Root || len(q.Segments) > len(p.Segments) {
		return false
	}
	for i, s := range q.Segments {
		if p.Segments[i] != s {
			return false
		}
	}
	return true
}
