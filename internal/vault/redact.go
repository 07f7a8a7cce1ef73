package vault

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Redaction marks what was scrubbed.
const Redaction = "[REDACTED]"

// Below these lengths a value is not scrubbed: a secret of three characters is
// no secret, and scrubbing every "abc" would make log lines unreadable. Base64
// fragments of a value embedded in a longer encoded text (see forms) are
// scrubbed from MinEmbeddedLen bytes on.
const (
	MinRedactLen   = 4
	MinEmbeddedLen = 8
)

// Redactor scrubs a set of secret values, and their obvious encodings, from
// text: log lines, upstream error bodies, anything that leaves the process.
// It is immutable and safe for concurrent use; the zero value and nil scrub
// nothing.
type Redactor struct {
	values []string
	// The replacer is built on first use: an execution that resolves
	// credentials but never has anything to scrub does not pay for it.
	once     sync.Once
	replacer *strings.Replacer
}

// NewRedactor makes a redactor for values. It scrubs each value as it is; in
// standard and URL-safe base64, padded or not; base64 of the value embedded in
// a longer text (as in "Basic base64(user:value)"), at each of the three byte
// alignments, except for the one or two characters at either end that the
// neighbouring bytes change; hex, lower and upper case; URL query and path
// escaping; and JSON string escaping. "Bearer <value>" is covered by the value.
// What it does not catch: other encodings (URL-escaped base64, gzip, ...) and
// fragments of a value split across lines.
func NewRedactor(values ...string) *Redactor {
	return (*Redactor)(nil).With(values...)
}

// With returns a redactor for r's values and values.
func (r *Redactor) With(values ...string) *Redactor {
	var all []string
	if r != nil {
		all = slices.Clone(r.values)
	}
	for _, v := range values {
		if len(v) >= MinRedactLen && !slices.Contains(all, v) {
			all = append(all, v)
		}
	}
	return &Redactor{values: all}
}

// build makes the replacer of every form of every value.
func (r *Redactor) build() {
	if len(r.values) == 0 {
		return
	}
	seen := map[string]bool{}
	var pats []string
	for _, v := range r.values {
		for _, f := range forms(v) {
			if len(f) >= MinRedactLen && !seen[f] {
				seen[f] = true
				pats = append(pats, f)
			}
		}
	}
	// Where patterns overlap at one position the Replacer takes the first
	// given, so the longest go first: a padded base64 form before its core.
	slices.SortFunc(pats, func(a, b string) int { return len(b) - len(a) })
	args := make([]string, 0, 2*len(pats))
	for _, p := range pats {
		args = append(args, p, Redaction)
	}
	r.replacer = strings.NewReplacer(args...)
}

// active returns the replacer, building it once; nil scrubs nothing.
func (r *Redactor) active() *strings.Replacer {
	if r == nil {
		return nil
	}
	r.once.Do(r.build)
	return r.replacer
}

func forms(v string) []string {
	b := []byte(v)
	out := []string{v,
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
		url.QueryEscape(v), url.PathEscape(v),
	}
	if j, err := json.Marshal(v); err == nil {
		out = append(out, string(j[1:len(j)-1]))
	}
	if len(b) >= MinEmbeddedLen {
		for k := 0; k < 3; k++ {
			core := embeddedCore(b, k)
			out = append(out, core, strings.NewReplacer("+", "-", "/", "_").Replace(core))
		}
	}
	return out
}

// embeddedCore is the part of the base64 of a text that is the same wherever
// in that text v appears at byte offset k (mod 3): the 4-character groups made
// of v's bytes only.
func embeddedCore(v []byte, k int) string {
	enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, k), v...))
	first := (k + 2) / 3     // first group that starts inside v
	last := (k + len(v)) / 3 // groups [first, last) lie wholly inside v
	if last <= first {
		return ""
	}
	return enc[4*first : 4*last]
}

// Len is the number of values scrubbed.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.values)
}

// Scrub returns s with every form of every value replaced by Redaction.
func (r *Redactor) Scrub(s string) string {
	rep := r.active()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// ScrubBytes scrubs b, returning b itself when there is nothing to scrub.
func (r *Redactor) ScrubBytes(b []byte) []byte {
	rep := r.active()
	if rep == nil {
		return b
	}
	s := string(b)
	if out := rep.Replace(s); out != s {
		return []byte(out)
	}
	return b
}

// ReplaceAttr scrubs string attributes; use it as slog.HandlerOptions.ReplaceAttr.
// Values logged through LogValuer or as non-strings are not seen here.
func (r *Redactor) ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindString {
		if s := a.Value.String(); r.Scrub(s) != s {
			a.Value = slog.StringValue(r.Scrub(s))
		}
	}
	return a
}

// String never prints the values.
func (r *Redactor) String() string { return fmt.Sprintf("Redactor(%d values)", r.Len()) }

// GoString never prints the values.
func (r *Redactor) GoString() string { return r.String() }
