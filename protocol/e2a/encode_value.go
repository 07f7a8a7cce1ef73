package e2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// This file writes plain JSON values byte for byte as encoding/json does with
// SetEscapeHTML(false) (the test TestEncoderMatchesEncodingJSON holds it to
// that), at a fraction of the cost: the envelope codec must run at ≥ 300k
// envelopes per second per core. Values of other types fall back to
// encoding/json itself.

type encoder struct {
	b   []byte
	err error
}

func (w *encoder) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *encoder) raw(s string) { w.b = append(w.b, s...) }

// key writes `"k":` for a fixed field name (plain ASCII, no escaping needed).
func (w *encoder) key(k string) {
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

// optStr writes s, or null for "".
func (w *encoder) optStr(s string) {
	if s == "" {
		w.raw("null")
		return
	}
	w.str(s)
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string, escaping as encoding/json does without HTML
// escaping: quotes, backslashes, control characters, U+2028 and U+2029; invalid
// UTF-8 becomes U+FFFD.
func (w *encoder) str(s string) {
	b := append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	w.b = append(b, '"')
}

// float writes f as encoding/json does.
func (w *encoder) float(f float64, bits int) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.fail(fmt.Errorf("e2a: cannot encode %v as JSON", f))
		w.raw("null")
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(w.b, f, format, -1, bits)
	if format == 'e' { // e-09 -> e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	w.b = b
}

// obj writes a map with sorted keys; nil is {}.
func (w *encoder) obj(m map[string]any) {
	if len(m) == 0 {
		w.raw("{}")
		return
	}
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, k := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(k)
		w.b = append(w.b, ':')
		w.value(m[k])
	}
	w.b = append(w.b, '}')
}

// nullableObj writes nil as null and any other map as obj does.
func (w *encoder) nullableObj(m map[string]any) {
	if m == nil {
		w.raw("null")
		return
	}
	w.obj(m)
}

func (w *encoder) strMap(m map[string]string) {
	if len(m) == 0 {
		w.raw("{}")
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, k := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(k)
		w.b = append(w.b, ':')
		w.str(m[k])
	}
	w.b = append(w.b, '}')
}

func (w *encoder) strList(l []string) {
	w.b = append(w.b, '[')
	for i, s := range l {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(s)
	}
	w.b = append(w.b, ']')
}

func (w *encoder) boolean(v bool) {
	if v {
		w.raw("true")
	} else {
		w.raw("false")
	}
}

// value writes any plain JSON value; other types go through encoding/json.
func (w *encoder) value(v any) {
	switch x := v.(type) {
	case nil:
		w.raw("null")
	case string:
		w.str(x)
	case bool:
		w.boolean(x)
	case float64:
		w.float(x, 64)
	case float32:
		w.float(float64(x), 32)
	case int:
		w.b = strconv.AppendInt(w.b, int64(x), 10)
	case int64:
		w.b = strconv.AppendInt(w.b, x, 10)
	case int32:
		w.b = strconv.AppendInt(w.b, int64(x), 10)
	case uint64:
		w.b = strconv.AppendUint(w.b, x, 10)
	case map[string]any:
		if x == nil {
			w.raw("null")
			return
		}
		w.obj(x)
	case []any:
		if x == nil {
			w.raw("null")
			return
		}
		w.b = append(w.b, '[')
		for i, el := range x {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.value(el)
		}
		w.b = append(w.b, ']')
	case []string:
		if x == nil {
			w.raw("null")
			return
		}
		w.strList(x)
	case ID:
		w.id(x)
	case map[string]string:
		if x == nil {
			w.raw("null")
			return
		}
		w.strMap(x)
	default:
		w.fallback(v)
	}
}

// fallback encodes v with encoding/json (no HTML escaping, compact).
func (w *encoder) fallback(v any) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 {
		// Already JSON, from our own encoder (a result encoded once for
		// several uses): as is. The caller vouches for it, as encoding/json's
		// Marshaler contract asks of any MarshalJSON.
		w.b = append(w.b, raw...)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.fail(fmt.Errorf("e2a: encoding a %T: %w", v, err))
		w.raw("null")
		return
	}
	w.b = append(w.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// time writes a nullable time: nil is null, and every other time, year 1
// included, is a timestamp.
func (w *encoder) time(t *time.Time) {
	if t == nil {
		w.raw("null")
		return
	}
	w.b = append(w.b, '"')
	w.b = AppendTimestamp(w.b, *t)
	w.b = append(w.b, '"')
}

func (w *encoder) id(id ID) {
	switch {
	case !id.set:
		w.raw("null")
	case id.isNumber:
		w.raw(id.text)
	default:
		w.str(id.text)
	}
}
