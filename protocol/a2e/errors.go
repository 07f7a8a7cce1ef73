package a2e

import (
	"errors"
	"fmt"
	"strings"
)

// Error is one problem found in a workflow document or an operation config. Every
// problem the codec reports is a validation problem (the spec's ValidationError,
// sluice's Kind Invalid).
//
// It is the codec's own type rather than internal/fault's because protocol
// packages are public and may import only the standard library (DESIGN.md,
// layering test). Its fields mirror fault.Error's, so callers convert it in one
// line:
//
//	fault.Typed(fault.Invalid, fault.ValidationError, "%s", e.Message).
//		At(e.Line, e.Path).WithOp(e.OperationID).WithSuggestions(e.Suggestions...)
type Error struct {
	// Line is the 1-based line of the document (the 1-based index of the message
	// for a document given as a JSON array); 0 when the problem is not in a document.
	Line int `json:"line,omitempty"`
	// Path is the JSON path of the problem inside the message: "type",
	// "operationOrder[2]", "operation.FilterData.conditions[1].operator".
	Path string `json:"path,omitempty"`
	// OperationID is the operation the problem concerns, when known.
	OperationID string `json:"operationId,omitempty"`
	// Message says what is wrong; it never holds a secret (documents hold only
	// credential ids, never values).
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions,omitempty"`
	// Cause is an underlying I/O error, if any; it is not part of the public face.
	Cause error `json:"-"`
}

// Error is "line N: message", or the message alone when there is no line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Cause }

// ErrorList is several problems at once; DecodeConfig and DecodeTransformConfig
// return one so a caller sees every problem of a config, not only the first.
// errors.As finds the first *Error in it.
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap lets errors.Is and errors.As look at every problem.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// errorf makes an Error at a line and path.
func errorf(line int, path, format string, args ...any) *Error {
	return &Error{Line: line, Path: path, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) withOp(id string) *Error { e.OperationID = id; return e }

func (e *Error) suggest(s ...string) *Error {
	for _, x := range s {
		if x != "" {
			e.Suggestions = append(e.Suggestions, x)
		}
	}
	return e
}

// asError returns err as *Error when it is one.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// didYouMean returns `Did you mean "x"?` for the candidate nearest to s, or ""
// when none is close enough to be a plausible typo.
func didYouMean(s string, candidates []string) string {
	if best := nearest(s, candidates); best != "" {
		return fmt.Sprintf("Did you mean %q?", best)
	}
	return ""
}

// nearest returns the candidate closest to s by edit distance (case-insensitive
// equality counts as closest), or "" when none is within a typo's reach.
func nearest(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		if strings.EqualFold(s, c) {
			return c
		}
		d := EditDistance(strings.ToLower(s), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(2, len(best)/3)
	if bestDist < 0 || bestDist > limit || len(s) > 4*len(best)+8 {
		return ""
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b in bytes, used for "did you
// mean" suggestions here and in the validator. Inputs are short
// names; it is never called on anything longer than a key of a bounded line.
func EditDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// joinPath appends key to a JSON path: "operation" + "ApiCall" = "operation.ApiCall".
// Keys that are not plain names are quoted: `headers["X-Api-Key"]`.
func joinPath(base, key string) string {
	if !isPlainKey(key) {
		k := fmt.Sprintf("[%q]", key)
		return base + k
	}
	if base == "" {
		return key
	}
	return base + "." + key
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

// indexPath appends an array index to a JSON path.
func indexPath(base string, i int) string { return fmt.Sprintf("%s[%d]", base, i) }
