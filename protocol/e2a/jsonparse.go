package e2a

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small JSON reader for the codec. encoding/json would do, but
// (1) it cannot say which field a problem is in, (2) it silently keeps the last
// of two equal keys, a classic way to smuggle a value past a checker that reads
// the first, (3) it silently rounds integers above 2^53, and (4) it is several
// times slower than the goal of issue 3 allows. Values are plain JSON values
// (map[string]any, []any, string, float64, bool, nil), as encoding/json makes.

type parser struct {
	data     []byte
	pos      int
	depth    int
	maxDepth int
	// exact keeps a number a float64 cannot hold exactly as a json.Number
	// instead of refusing it: for provenance.details and skipped values.
	exact bool
	// ignored lists the paths of the unknown keys skipUnknown skipped.
	ignored []string
}

// errAt makes an error at a byte offset. Its path is filled in on the way out:
// members and array prefix the key or index the problem was found under, so
// the decoder builds no path strings unless something is wrong.
func (p *parser) errAt(off int, format string, args ...any) *Error {
	e := errorf("", format, args...)
	e.Offset = off
	return e
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (p *parser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

// kindAt names the JSON type of the value at the current position.
func (p *parser) kindAt() string {
	c := p.peek()
	rest := p.data[min(p.pos, len(p.data)):]
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case bytes.HasPrefix(rest, []byte("true")) || bytes.HasPrefix(rest, []byte("false")):
		return "a boolean"
	case bytes.HasPrefix(rest, []byte("null")):
		return "null"
	case c == 0:
		return "nothing"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "something that is not JSON"
}

// end checks that nothing but space follows the value.
func (p *parser) end() error {
	p.skipSpace()
	if p.pos < len(p.data) {
		return p.errAt(p.pos, "invalid JSON: unexpected %q after the value", p.data[p.pos])
	}
	return nil
}

// value reads any JSON value.
func (p *parser) value() (any, error) {
	switch c := p.peek(); c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.str()
	case 't', 'f':
		return p.boolean()
	case 'n':
		return nil, p.null()
	case 0:
		return nil, p.errAt(p.pos, "invalid JSON: unexpected end of input")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			if p.exact {
				return p.exactNumber()
			}
			return p.number()
		}
		return nil, p.errAt(p.pos, "invalid JSON: unexpected %q", c)
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errAt(p.pos, "invalid JSON: expected %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) null() error { return p.literal("null") }

func (p *parser) boolean() (bool, error) {
	if p.peek() == 't' {
		return true, p.literal("true")
	}
	return false, p.literal("false")
}

// enter and leave bound nesting.
func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		return p.errAt(p.pos, "nested deeper than %d levels", p.maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// members calls fn for each member of the object at the current position, with
// the parser at the member's value; fn must consume the value. key aliases the
// input when it has no escapes (switch on string(key) costs no allocation).
// Duplicate keys are an error: keeping the last, as encoding/json does, would
// let a value slip past a checker that read the first.
func (p *parser) members(fn func(key []byte, keyOff int) error) error {
	if p.peek() != '{' {
		return p.errAt(p.pos, "must be an object, got %s", p.kindAt())
	}
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	p.pos++
	var seen map[string]struct{}
	var first [32][]byte // objects of up to 32 keys (every envelope) check duplicates without a map
	n := 0
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	for {
		if p.peek() != '"' {
			return p.errAt(p.pos, "invalid JSON: expected a key")
		}
		off := p.pos
		key, err := p.strBytes()
		if err != nil {
			return err
		}
		dup := false
		switch {
		case n < len(first):
			for _, k := range first[:n] {
				dup = dup || bytes.Equal(k, key)
			}
			first[n] = key
		case seen == nil:
			seen = make(map[string]struct{}, 2*len(first))
			for _, k := range first {
				seen[string(k)] = struct{}{}
			}
			fallthrough
		default:
			if _, dup = seen[string(key)]; !dup {
				seen[string(key)] = struct{}{}
			}
		}
		n++
		if dup {
			return under(p.errAt(off, "duplicate key"), string(key))
		}
		if p.peek() != ':' {
			return p.errAt(p.pos, "invalid JSON: expected ':' after a key")
		}
		p.pos++
		p.skipSpace() // fn sees the value's own offset
		if err := fn(key, off); err != nil {
			return under(err, string(key))
		}
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.errAt(p.pos, "invalid JSON: expected ',' or '}'")
		}
	}
}

// object reads an object as a map.
func (p *parser) object() (map[string]any, error) {
	m := map[string]any{}
	err := p.members(func(key []byte, _ int) error {
		v, err := p.value()
		m[string(key)] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// objectOrNull reads an object, returning nil for null and for {}.
func (p *parser) objectOrNull() (map[string]any, error) {
	if p.peek() == 'n' {
		return nil, p.null()
	}
	m, err := p.object()
	if len(m) == 0 {
		m = nil
	}
	return m, err
}

func (p *parser) array() ([]any, error) {
	if p.peek() != '[' {
		return nil, p.errAt(p.pos, "must be an array, got %s", p.kindAt())
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.pos++
	out := []any{}
	if p.peek() == ']' {
		p.pos++
		return out, nil
	}
	for i := 0; ; i++ {
		v, err := p.value()
		if err != nil {
			return nil, underIndex(err, i)
		}
		out = append(out, v)
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return out, nil
		default:
			return nil, p.errAt(p.pos, "invalid JSON: expected ',' or ']'")
		}
	}
}

// str reads a string. Invalid UTF-8 is an error (it would otherwise be replaced
// silently); a lone surrogate escape becomes U+FFFD, as encoding/json does.
func (p *parser) str() (string, error) {
	b, err := p.strBytes()
	return string(b), err
}

// strBytes reads a string's bytes: a slice of the input when it has no escapes
// and is plain ASCII (no copy), else a decoded copy.
func (p *parser) strBytes() ([]byte, error) {
	if p.peek() != '"' {
		return nil, p.errAt(p.pos, "must be a string, got %s", p.kindAt())
	}
	start := p.pos + 1
	plain := true
	for i := start; i < len(p.data); i++ {
		c := p.data[i]
		switch {
		case c == '"':
			raw := p.data[start:i]
			p.pos = i + 1
			if plain {
				return raw, nil
			}
			return p.unescape(raw, start)
		case c == '\\':
			plain = false
			i++
		case c < 0x20:
			return nil, p.errAt(i, "invalid JSON: control character in a string")
		case c >= 0x80:
			plain = false
		}
	}
	return nil, p.errAt(start-1, "invalid JSON: unterminated string")
}

func (p *parser) unescape(raw []byte, base int) ([]byte, error) {
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, p.errAt(base+i, "invalid UTF-8 in a string")
			}
			b = append(b, raw[i:i+size]...)
			i += size
			continue
		}
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return nil, p.errAt(base+i, "invalid JSON: bad escape")
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			b = append(b, raw[i+1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				return nil, p.errAt(base+i, "invalid JSON: bad \\u escape")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok2 = hex4(raw[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return nil, p.errAt(base+i, "invalid JSON: bad escape \\%c", raw[i+1])
		}
		i += 2
	}
	return b, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// maxExactInt is the largest integer a float64 holds exactly (2^53).
const maxExactInt = 1 << 53

// numberText scans a JSON number and returns its text.
func (p *parser) numberText() ([]byte, bool, error) {
	start := p.pos
	i := start
	d := p.data
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return nil, false, p.errAt(start, "invalid JSON: bad number")
	}
	integral := true
	if i < len(d) && d[i] == '.' {
		integral = false
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false, p.errAt(start, "invalid JSON: bad number")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integral = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false, p.errAt(start, "invalid JSON: bad number")
		}
	}
	p.pos = i
	return d[start:i], integral, nil
}

// number reads a number as a float64. An integer a float64 cannot hold exactly
// is an error rather than a silent rounding.
func (p *parser) number() (float64, error) {
	start := p.pos
	text, integral, err := p.numberText()
	if err != nil {
		return 0, err
	}
	if integral && len(text) <= 15 { // fast path: fits exactly, no parsing library
		var n int64
		neg := text[0] == '-'
		for _, c := range text {
			if c != '-' {
				n = n*10 + int64(c-'0')
			}
		}
		if neg {
			n = -n
		}
		return float64(n), nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, p.errAt(start, "number %s is out of range", text)
	}
	if integral && !exactFloat(string(text), f) {
		return 0, p.errAt(start, "integer %s is beyond 2^53 and would not read back as written; send it as a string", text)
	}
	return f, nil
}

// exactNumber reads a number as number does, but keeps one that a float64
// cannot hold exactly (an integer beyond 2^53, 1e400) as its text, a
// json.Number, rather than refuse it.
func (p *parser) exactNumber() (any, error) {
	start := p.pos
	f, err := p.number()
	if err == nil {
		return f, nil
	}
	p.pos = start
	text, _, err := p.numberText()
	if err != nil {
		return nil, err
	}
	return json.Number(text), nil
}

// skipUnknown skips the value of an unknown key and notes its path (key under
// parent, "" for the top): the reference ignores what it does not know, and so
// do we. The value must still be JSON without duplicate keys, within the
// depth limit; its numbers may be anything JSON allows.
func (p *parser) skipUnknown(parent string, key []byte) error {
	if len(p.ignored) < maxIgnored {
		if len(key) > maxIgnoredKey {
			key = key[:maxIgnoredKey]
		}
		path := under(&Error{}, string(key)).(*Error)
		if parent != "" {
			under(path, parent)
		}
		p.ignored = append(p.ignored, path.Path)
	}
	saved := p.exact
	p.exact = true
	_, err := p.value()
	p.exact = saved
	return err
}

// maxIgnored and maxIgnoredKey bound the list of skipped keys a decode
// returns: at most 32 paths, each key cut to 64 bytes.
const (
	maxIgnored    = 32
	maxIgnoredKey = 64
)

// exactFloat reports whether f stands for the number written as text without
// changing it: any fractional or exponent literal (floats are approximate by
// nature), and an integer literal when f is written back as the same digits.
// Every integer below 2^53 qualifies, and so does every integral float64 this
// package (or encoding/json) writes, so the codec reads its own output; a
// precise large integer such as an id 12345678901234567890 does not, and is an
// error rather than a silent rounding.
func exactFloat(text string, f float64) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '.' || c == 'e' || c == 'E' {
			return true
		}
	}
	if math.Abs(f) < maxExactInt {
		return true
	}
	return strconv.FormatFloat(f, 'f', -1, 64) == text
}
