// Package jsonvalue encodes the values encoding/json decodes into `any`
// (maps, slices, strings, float64s, bools, nil, json.Number), and the ints
// operations make, to the very bytes json.Marshal gives them, without
// reflection: an execution's results are such trees, and encoding them by
// reflection cost an allocation per map and its sorted keys (~590 for a
// 5-operation data workflow's result over 20 items). Any other type is
// handed to json.Marshal, so the output is json.Marshal's whatever the tree.
package jsonvalue

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Append appends v encoded as json.Marshal(v) would and returns the
// extended buffer; an error is json.Marshal's (a NaN, a channel).
func Append(dst []byte, v any) ([]byte, error) {
	var e encoder
	return e.append(dst, v)
}

// encoder keeps one buffer of map keys for a whole tree: each map sorts its
// keys in a stretch at the buffer's end, and the maps inside it use the
// stretch after, so a tree costs no allocation per map.
type encoder struct{ keys []string }

func (e *encoder) append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return AppendString(dst, x, true), nil
	case float64:
		b, ok := AppendFloat(dst, x, 64)
		if !ok {
			_, err := json.Marshal(x) // json.Marshal's own error
			return dst, err
		}
		return b, nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case map[string]any:
		return e.appendObject(dst, x)
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, el := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = e.append(dst, el); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	// json.Number, structs, typed slices...: encoding/json's own way. Its
	// output for a value does not depend on where the value sits.
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func (e *encoder) appendObject(dst []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '{')
	switch len(m) {
	case 0:
	case 1:
		for k, v := range m {
			dst = append(AppendString(dst, k, true), ':')
			var err error
			if dst, err = e.append(dst, v); err != nil {
				return dst, err
			}
		}
	default:
		// json.Marshal sorts a map's keys.
		start := len(e.keys)
		for k := range m {
			e.keys = append(e.keys, k)
		}
		slices.Sort(e.keys[start:])
		defer func() { e.keys = e.keys[:start] }()
		for i := range len(m) {
			k := e.keys[start+i] // e.keys may move as inner maps grow it
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(AppendString(dst, k, true), ':')
			var err error
			if dst, err = e.append(dst, m[k]); err != nil {
				return dst, err
			}
		}
	}
	return append(dst, '}'), nil
}

// AppendFloat appends f in encoding/json's form for a float of bits (32 or
// 64): ES6 number to string, with exponents from 1e21 and below 1e-6,
// unpadded. It reports false, appending nothing, for a NaN or an infinity,
// which JSON cannot hold.
func AppendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	// A whole float64 below 2^53 (most numbers in JSON data) is written as
	// its integer: 'f' with the shortest round-trip digits gives the same
	// bytes there, since neighbouring floats are at most 1 apart, and
	// strconv.AppendInt is a fraction of the cost. -0 keeps its sign below.
	if bits == 64 && f == math.Trunc(f) && math.Abs(f) < 1<<53 && (f != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(dst, int64(f), 10), true
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' { // e-09 -> e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string the way encoding/json writes one:
// quotes, backslashes and control characters escaped, U+2028 and U+2029
// escaped, invalid UTF-8 replaced by U+FFFD, and with escapeHTML (as
// json.Marshal) <, > and & escaped too.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
