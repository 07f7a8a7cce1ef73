package e2a

import (
	"bytes"
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
}

func (p *parser) errAt(at *path, off int, format string, args ...any) *Error {
	e := errorf(at.String(), format, args...)
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
		return p.errAt(nil, p.pos, "invalid JSON: unexpected %q after the value", p.data[p.pos])
	}
	return nil
}

// value reads any JSON value.
func (p *parser) value(at *path) (any, error) {
	switch c := p.peek(); c {
	case '{':
		return p.object(at)
	case '[':
		return p.array(at)
	case '"':
		return p.str(at)
	case 't', 'f':
		return p.boolean(at)
	case 'n':
		return nil, p.null(at)
	case 0:
		return nil, p.errAt(at, p.pos, "invalid JSON: unexpected end of input")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return p.number(at)
		}
		return nil, p.errAt(at, p.pos, "invalid JSON: unexpected %q", c)
	}
}

func (p *parser) literal(at *path, word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errAt(at, p.pos, "invalid JSON: expected %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) null(at *path) error { return p.literal(at, "null") }

func (p *parser) boolean(at *path) (bool, error) {
	if p.peek() == 't' {
		return true, p.literal(at, "true")
	}
	return false, p.literal(at, "false")
}

// enter and leave bound nesting.
func (p *parser) enter(at *path) error {
	p.depth++
	if p.depth > p.maxDepth {
		return p.errAt(at, p.pos, "nested deeper than %d levels", p.maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// members calls fn for each member of the object at the current position, with
// the parser at the member's value; fn must consume the value. Duplicate keys
// are an error.
func (p *parser) members(at *path, fn func(key string, keyOff int) error) error {
	if p.peek() != '{' {
		return p.errAt(at, p.pos, "must be an object, got %s", p.kindAt())
	}
	if err := p.enter(at); err != nil {
		return err
	}
	defer p.leave()
	p.pos++
	var seen map[string]struct{}
	var first [8]string // small objects check duplicates without a map
	n := 0
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	for {
		if p.peek() != '"' {
			return p.errAt(at, p.pos, "invalid JSON: expected a key")
		}
		off := p.pos
		key, err := p.str(at)
		if err != nil {
			return err
		}
		dup := false
		if seen == nil {
			for _, k := range first[:min(n, len(first))] {
				if k == key {
					dup = true
				}
			}
			if n < len(first) {
				first[n] = key
			} else {
				seen = make(map[string]struct{}, 2*len(first))
				for _, k := range first {
					seen[k] = struct{}{}
				}
			}
		}
		if seen != nil {
			if _, dup = seen[key]; !dup {
				seen[key] = struct{}{}
			}
		}
		n++
		if dup {
			kp := at.field(key)
			return p.errAt(&kp, off, "duplicate key")
		}
		if p.peek() != ':' {
			return p.errAt(at, p.pos, "invalid JSON: expected ':' after a key")
		}
		p.pos++
		p.skipSpace() // fn sees the value's own offset
		if err := fn(key, off); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.errAt(at, p.pos, "invalid JSON: expected ',' or '}'")
		}
	}
}

// object reads an object as a map.
func (p *parser) object(at *path) (map[string]any, error) {
	m := map[string]any{}
	err := p.members(at, func(key string, _ int) error {
		kp := at.field(key)
		v, err := p.value(&kp)
		m[key] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// objectOrNull reads an object, returning nil for null and for {}.
func (p *parser) objectOrNull(at *path) (map[string]any, error) {
	if p.peek() == 'n' {
		return nil, p.null(at)
	}
	m, err := p.object(at)
	if len(m) == 0 {
		m = nil
	}
	return m, err
}

func (p *parser) array(at *path) ([]any, error) {
	if p.peek() != '[' {
		return nil, p.errAt(at, p.pos, "must be an array, got %s", p.kindAt())
	}
	if err := p.enter(at); err != nil {
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
		ep := at.elem(i)
		v, err := p.value(&ep)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return out, nil
		default:
			return nil, p.errAt(at, p.pos, "invalid JSON: expected ',' or ']'")
		}
	}
}

// str reads a string. Invalid UTF-8 is an error (it would otherwise be replaced
// silently); a lone surrogate escape becomes U+FFFD, as encoding/json does.
func (p *parser) str(at *path) (string, error) {
	if p.peek() != '"' {
		return "", p.errAt(at, p.pos, "must be a string, got %s", p.kindAt())
	}
	start := p.pos + 1
	plain := true
	i := start
	for ; i < len(p.data); i++ {
		c := p.data[i]
		switch {
		case c == '"':
			raw := p.data[start:i]
			p.pos = i + 1
			if plain {
				return string(raw), nil
			}
			return p.unescape(at, raw, start)
		case c == '\\':
			plain = false
			i++
		case c < 0x20:
			return "", p.errAt(at, i, "invalid JSON: control character in a string")
		case c >= 0x80:
			plain = false
		}
	}
	return "", p.errAt(at, start-1, "invalid JSON: unterminated string")
}

func (p *parser) unescape(at *path, raw []byte, base int) (string, error) {
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.errAt(at, base+i, "invalid UTF-8 in a string")
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
			return "", p.errAt(at, base+i, "invalid JSON: bad escape")
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
				return "", p.errAt(at, base+i, "invalid JSON: bad \\u escape")
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
			return "", p.errAt(at, base+i, "invalid JSON: bad escape \\%c", raw[i+1])
		}
		i += 2
	}
	return string(b), nil
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
func (p *parser) numberText(at *path) ([]byte, bool, error) {
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
		return nil, false, p.errAt(at, start, "invalid JSON: bad number")
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
			return nil, false, p.errAt(at, start, "invalid JSON: bad number")
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
			return nil, false, p.errAt(at, start, "invalid JSON: bad number")
		}
	}
	p.pos = i
	return d[start:i], integral, nil
}

// number reads a number as a float64. An integer a float64 cannot hold exactly
// is an error rather than a silent rounding.
func (p *parser) number(at *path) (float64, error) {
	start := p.pos
	text, integral, err := p.numberText(at)
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
		return 0, p.errAt(at, start, "number %s is out of range", text)
	}
	if integral && !exactFloat(string(text), f) {
		return 0, p.errAt(at, start, "integer %s is beyond 2^53 and would not read back as written; send it as a string", text)
	}
	return f, nil
}

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
