package a2s

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// jsonParser reads RFC 8259 JSON into a tree with positions. It is our own
// (small) scanner rather than encoding/json because every value needs its line
// and column, errors must say what was expected where, and duplicate keys must
// be refused: the checksum of a document with two values for one key would
// depend on which one a reader keeps.
type jsonParser struct {
	data  []byte
	i     int
	lines lineIndex
	lim   Limits
	nodes int
}

func parseJSON(data []byte, lim Limits) (*Node, *Error) {
	p := &jsonParser{data: data, lines: newLineIndex(data), lim: lim}
	p.space()
	if p.i == len(p.data) {
		return nil, p.fail(p.i, "the document is empty; expected a JSON object")
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.data) {
		return nil, p.fail(p.i, "unexpected %s after the top-level value", p.what(p.i))
	}
	return n, nil
}

func (p *jsonParser) fail(off int, format string, args ...any) *Error {
	return &Error{Rule: RuleSyntax, Pos: p.lines.pos(p.data, off), Message: "JSON: " + fmt.Sprintf(format, args...)}
}

// what names the byte at off for an error message.
func (p *jsonParser) what(off int) string {
	if off >= len(p.data) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.data[off:])
	return fmt.Sprintf("character %q", r)
}

func (p *jsonParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*Node, *Error) {
	if depth > p.lim.MaxDepth {
		return nil, &Error{Rule: RuleLimit, Pos: p.lines.pos(p.data, p.i),
			Message: fmt.Sprintf("JSON: nesting deeper than %d levels", p.lim.MaxDepth)}
	}
	p.nodes++
	if p.nodes > p.lim.MaxNodes {
		return nil, &Error{Rule: RuleLimit, Pos: p.lines.pos(p.data, p.i),
			Message: fmt.Sprintf("JSON: more than %d values", p.lim.MaxNodes)}
	}
	start := p.i
	pos := p.lines.pos(p.data, start)
	if p.i >= len(p.data) {
		return nil, p.fail(p.i, "unexpected end of input; expected a value")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth, pos)
	case c == '[':
		return p.array(depth, pos)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Node{Kind: KindString, Pos: pos, Str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number(pos)
	case p.literal("true"):
		return &Node{Kind: KindBool, Pos: pos, Bool: true}, nil
	case p.literal("false"):
		return &Node{Kind: KindBool, Pos: pos}, nil
	case p.literal("null"):
		return &Node{Kind: KindNull, Pos: pos}, nil
	}
	return nil, p.fail(p.i, "unexpected %s; expected a value (object, array, string, number, true, false or null)", p.what(p.i))
}

func (p *jsonParser) literal(word string) bool {
	if len(p.data)-p.i >= len(word) && string(p.data[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jsonParser) object(depth int, pos Pos) (*Node, *Error) {
	n := &Node{Kind: KindObject, Pos: pos}
	p.i++ // {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return n, nil
	}
	// Small objects look for a duplicate among the keys read; large ones
	// keep a set.
	var seen map[string]bool
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.fail(p.i, "unexpected %s; expected a string key in object", p.what(p.i))
		}
		kpos := p.lines.pos(p.data, p.i)
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.duplicate(n, seen, key) {
			return nil, &Error{Rule: RuleSyntax, Pos: kpos, Message: fmt.Sprintf("JSON: duplicate key %q in object", key)}
		}
		if len(n.Keys) == 16 {
			seen = make(map[string]bool, 32)
			for _, m := range n.Keys {
				seen[m.Name] = true
			}
		}
		if seen != nil {
			seen[key] = true
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.fail(p.i, "unexpected %s; expected ':' after object key %q", p.what(p.i), key)
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Keys = append(n.Keys, &Member{Name: key, Pos: kpos, Value: v})
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return n, nil
		}
		return nil, p.fail(p.i, "unexpected %s; expected ',' or '}' after object member", p.what(p.i))
	}
}

func (p *jsonParser) duplicate(n *Node, seen map[string]bool, key string) bool {
	if seen != nil {
		return seen[key]
	}
	for _, m := range n.Keys {
		if m.Name == key {
			return true
		}
	}
	return false
}

func (p *jsonParser) array(depth int, pos Pos) (*Node, *Error) {
	n := &Node{Kind: KindArray, Pos: pos}
	p.i++ // [
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return n, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Items = append(n.Items, v)
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return n, nil
		}
		return nil, p.fail(p.i, "unexpected %s; expected ',' or ']' after array element", p.what(p.i))
	}
}

// str reads a string literal. The scanner finds its end and checks what
// encoding/json is lenient about (raw control characters); encoding/json then
// decodes the escapes, which it does exactly as RFC 8259 says.
func (p *jsonParser) str() (string, *Error) {
	start := p.i
	p.i++ // opening quote
	plain := true
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			raw := p.data[start:p.i]
			if plain {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.fail(start, "bad escape in string: %v", err)
			}
			return s, nil
		case c == '\\':
			plain = false
			if p.i+1 >= len(p.data) {
				return "", p.fail(p.i, "unterminated string")
			}
			switch e := p.data[p.i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.data) || !isHex4(p.data[p.i+2:p.i+6]) {
					return "", p.fail(p.i, `bad \u escape in string: expected four hex digits`)
				}
				p.i += 6
			default:
				return "", p.fail(p.i, `bad escape \%c in string`, e)
			}
		case c < 0x20:
			return "", p.fail(p.i, "control character 0x%02x in string: escape it", c)
		default:
			p.i++
		}
	}
	return "", p.fail(start, "unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads an RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonParser) number(pos Pos) (*Node, *Error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.data) && p.data[p.i] == '0' {
		p.i++
		if p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			return nil, p.fail(start, "number with a leading zero")
		}
	} else if digits() == 0 {
		return nil, p.fail(p.i, "unexpected %s; expected a digit in number", p.what(p.i))
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail(p.i, "unexpected %s; expected a digit after '.' in number", p.what(p.i))
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail(p.i, "unexpected %s; expected a digit in exponent", p.what(p.i))
		}
	}
	text := string(p.data[start:p.i])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, p.fail(start, "number %s is out of the range of a double", text)
	}
	return &Node{Kind: KindNumber, Pos: pos, Num: f, Str: text}, nil
}

// lineIndex maps byte offsets to positions. The parser asks for rising
// offsets, so it counts characters on from the last answer when it can: a
// minified document of one long line stays linear.
type lineIndex struct {
	starts []int // offsets where lines start
	// the last answer
	off, line, col int
}

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{starts: []int{0}, line: 0, col: 1}
	for i, c := range data {
		if c == '\n' {
			idx.starts = append(idx.starts, i+1)
		}
	}
	return idx
}

func (l *lineIndex) pos(data []byte, off int) Pos {
	off = min(max(off, 0), len(data))
	line := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	if line == l.line && off >= l.off {
		l.col += utf8.RuneCount(data[l.off:off])
	} else {
		l.col = 1 + utf8.RuneCount(data[l.starts[line]:off])
	}
	l.off, l.line = off, line
	return Pos{Line: line + 1, Col: l.col}
}
