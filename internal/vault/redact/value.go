package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
)

// ScrubValue scrubs a decoded JSON value: its strings, its object keys, and
// its numbers when a value could be echoed as one (a numeric secret answered
// as 12345678 becomes the string Mark). Containers are copied only where
// something changed, so a clean value is returned as it is, unshared parts
// included.
func (r *Redactor) ScrubValue(v any) any {
	if r.active() == nil {
		return v
	}
	out, _ := r.scrubValue(v)
	return out
}

func (r *Redactor) scrubValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if s := r.Scrub(x); s != x {
			return s, true
		}
		return v, false // v itself: boxing the string again would allocate
	case float64:
		if !r.numeric {
			return v, false
		}
		return r.scrubNumber(v, strconv.FormatFloat(x, 'f', -1, 64))
	case json.Number:
		return r.scrubNumber(v, string(x))
	case []any:
		var out []any
		for i, e := range x {
			if ne, changed := r.scrubValue(e); changed {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			nk := r.Scrub(k)
			ne, changed := r.scrubValue(e)
			if !changed && nk == k {
				continue
			}
			if out == nil {
				out = maps.Clone(x)
			}
			delete(out, k)
			out[nk] = ne
		}
		if out == nil {
			return x, false
		}
		return out, true
	}
	return v, false
}

// scrubNumber turns a number whose text holds a value into its scrubbed text.
func (r *Redactor) scrubNumber(v any, text string) (any, bool) {
	if !r.numeric {
		return v, false
	}
	if s := r.Scrub(text); s != text {
		return s, true
	}
	return v, false
}

// ScrubJSON scrubs a JSON document as its decoded values, so that a value
// written with \u escapes ("\u0073k-live-...") is found too; the document is
// re-encoded only when something changed. A document that does not decode is
// scrubbed as text.
func (r *Redactor) ScrubJSON(raw json.RawMessage) json.RawMessage {
	if r.active() == nil || len(raw) == 0 {
		return raw
	}
	// Without escapes every decoded string and number is a piece of raw, so
	// raw without a match holds none: the common case costs one scan.
	if bytes.IndexByte(raw, '\\') < 0 && bytes.Equal(r.ScrubBytes(raw), raw) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return r.ScrubBytes(raw)
	}
	out, changed := r.scrubValue(v)
	if !changed {
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return r.ScrubBytes(raw)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ScrubText scrubs a text that may be a JSON document whatever its media
// type says: as text, and, when it holds escapes and decodes as JSON, as its
// decoded values (then re-encoded), so that "\u0073k-live-..." in a text/plain
// answer is found too.
func (r *Redactor) ScrubText(s string) string {
	if r.active() == nil {
		return s
	}
	if strings.IndexByte(s, '\\') < 0 {
		return r.Scrub(s)
	}
	b := []byte(s)
	if out := r.ScrubJSON(b); &out[0] != &b[0] {
		return string(out)
	}
	return s
}
