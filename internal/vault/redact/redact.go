package redact

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Mark replaces what was scrubbed.
const Mark = "[REDACTED]"

// Below these lengths a value is not scrubbed: a secret of three characters is
// no secret, and scrubbing every "abc" would make text unreadable. The base64
// fragments of a value embedded in a longer encoded text (see embeddedCores)
// are scrubbed from MinEmbeddedLen bytes on.
const (
	MinLen         = 4
	MinEmbeddedLen = 8
)

// Redactor scrubs a set of secret values, in every form of forms.go, from
// text and decoded JSON. It is immutable and safe for concurrent use; nil and
// the zero value scrub nothing.
type Redactor struct {
	values []string
	// The matcher is built on first use, once: an execution that resolves
	// credentials but never has anything to scrub does not pay for it.
	once    sync.Once
	matcher *matcher
	numeric bool // some value could be written as a JSON number
}

// New makes a redactor of values; values shorter than MinLen are ignored.
func New(values ...string) *Redactor {
	return (*Redactor)(nil).With(values...)
}

// With returns a redactor of r's values and values; r is unchanged.
func (r *Redactor) With(values ...string) *Redactor {
	var all []string
	if r != nil {
		all = slices.Clone(r.values)
	}
	for _, v := range values {
		if len(v) >= MinLen && !slices.Contains(all, v) {
			all = append(all, v)
		}
	}
	return &Redactor{values: all}
}

// build makes one matcher of every form of every value.
func (r *Redactor) build() {
	var pats []string
	for _, v := range r.values {
		for _, f := range forms(v) {
			if len(f) >= MinLen {
				pats = append(pats, f)
			}
		}
		r.numeric = r.numeric || isNumberText(v)
	}
	r.matcher = newMatcher(pats)
}

// active returns the matcher, building it once; nil scrubs nothing.
func (r *Redactor) active() *matcher {
	if r == nil || len(r.values) == 0 {
		return nil
	}
	r.once.Do(r.build)
	return r.matcher
}

// Len is the number of values scrubbed.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.values)
}

// Scrub returns s with every form of every value replaced by Mark;
// overlapping occurrences become one Mark.
func (r *Redactor) Scrub(s string) string {
	m := r.active()
	if m == nil {
		return s
	}
	spans := find(m, s)
	if spans == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(Mark)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// ScrubBytes scrubs b, returning b itself when there is nothing to scrub.
func (r *Redactor) ScrubBytes(b []byte) []byte {
	m := r.active()
	if m == nil {
		return b
	}
	spans := find(m, b)
	if spans == nil {
		return b
	}
	out := make([]byte, 0, len(b))
	at := 0
	for _, sp := range spans {
		out = append(append(out, b[at:sp.start]...), Mark...)
		at = sp.end
	}
	return append(out, b[at:]...)
}

// ReplaceAttr scrubs string attributes; use it as slog.HandlerOptions.ReplaceAttr.
// Values logged through LogValuer or as non-strings are not seen here.
func (r *Redactor) ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindString {
		s := a.Value.String()
		if scrubbed := r.Scrub(s); scrubbed != s {
			a.Value = slog.StringValue(scrubbed)
		}
	}
	return a
}

// String never prints the values.
func (r *Redactor) String() string { return fmt.Sprintf("Redactor(%d values)", r.Len()) }

// GoString never prints the values.
func (r *Redactor) GoString() string { return r.String() }
