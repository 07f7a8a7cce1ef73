package e2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/sluicehq/sluice/protocol/jsonvalue"
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

// str writes s as a JSON string, escaping as encoding/json does without HTML
// escaping: quotes, backslashes, control characters, U+2028 and U+2029; invalid
// UTF-8 becomes U+FFFD.
func (w *encoder) str(s string) { w.b = jsonvalue.AppendString(w.b, s, false) }

// float writes f as encoding/json does.
func (w *encoder) float(f float64, bits int) {
	b, ok := jsonvalue.AppendFloat(w.b, f, bits)
	if !ok {
		w.fail(fmt.Errorf("e2a: cannot encode %v as JSON", f))
		w.raw("null")
		return
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
