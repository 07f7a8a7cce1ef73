package agenthttp

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// References in input_mapping strings: ${workflow.input.PATH} is the
// workflow's input, ${STEP.output.PATH} the output of an earlier step. PATH
// is optional: dot-separated keys and [N] array indexes (a.b[0].c). A string
// that is exactly one reference passes the typed value; references inside a
// longer string are substituted as text. "$${" writes a literal "${".

// WorkflowSource is the Ref.Source of the workflow's input.
const WorkflowSource = "workflow"

// maxRefsPerString bounds the references of one string.
const maxRefsPerString = 64

// PathSeg is one step of a reference's path: a key or an array index.
type PathSeg struct {
	Key     string
	Index   int
	IsIndex bool
}

// Ref is one reference: Source is WorkflowSource or a step id.
type Ref struct {
	Source string
	Path   []PathSeg
}

// String writes r back as ${...}.
func (r Ref) String() string {
	var b strings.Builder
	b.WriteString("${")
	b.WriteString(r.Source)
	if r.Source == WorkflowSource {
		b.WriteString(".input")
	} else {
		b.WriteString(".output")
	}
	for _, p := range r.Path {
		if p.IsIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.Index))
			b.WriteByte(']')
		} else {
			b.WriteByte('.')
			b.WriteString(p.Key)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// Template is a parsed input_mapping string: literal text and references.
type Template struct {
	parts []tmplPart
}

type tmplPart struct {
	text string
	ref  *Ref
}

// Refs lists the template's references in order.
func (t Template) Refs() []Ref {
	var out []Ref
	for _, p := range t.parts {
		if p.ref != nil {
			out = append(out, *p.ref)
		}
	}
	return out
}

// Whole reports whether the template is exactly one reference (which then
// passes the typed value).
func (t Template) Whole() bool { return len(t.parts) == 1 && t.parts[0].ref != nil }

// ParseTemplate parses s. The error (What "reference", Offset the byte in s)
// says what is wrong with which reference.
func ParseTemplate(s string) (Template, error) {
	var t Template
	var text strings.Builder
	refs := 0
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			text.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return Template{}, errorf("reference", "", i, "%s is not closed with '}'", quoteShort(s[i:]))
			}
			ref, err := ParseRef(s[i+2 : i+end])
			if err != nil {
				err.Offset += i + 2
				return Template{}, err
			}
			if refs++; refs > maxRefsPerString {
				return Template{}, errorf("reference", "", i, "more than %d references in one string", maxRefsPerString)
			}
			if text.Len() > 0 {
				t.parts = append(t.parts, tmplPart{text: text.String()})
				text.Reset()
			}
			t.parts = append(t.parts, tmplPart{ref: &ref})
			i += end + 1
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	if text.Len() > 0 || len(t.parts) == 0 {
		t.parts = append(t.parts, tmplPart{text: text.String()})
	}
	return t, nil
}

// ParseRef parses the inside of a reference: "workflow.input.a.b" or
// "step-1.output.items[0]".
func ParseRef(s string) (Ref, *Error) {
	bad := func(off int, format string, args ...any) (Ref, *Error) {
		return Ref{}, errorf("reference", "", off, format, args...)
	}
	dot := strings.IndexByte(s, '.')
	if dot <= 0 {
		return bad(0, "${%s} names no source; want ${workflow.input...} or ${STEP.output...}", clipRef(s))
	}
	r := Ref{Source: s[:dot]}
	if err := checkStepID("reference", "", r.Source); err != nil && r.Source != WorkflowSource {
		return bad(0, "step id %s", err.Message)
	}
	rest := s[dot+1:]
	want := "output"
	if r.Source == WorkflowSource {
		want = "input"
	}
	if !strings.HasPrefix(rest, want) || len(rest) > len(want) && rest[len(want)] != '.' && rest[len(want)] != '[' {
		return bad(dot+1, "${%s}: after %q comes %q", clipRef(s), r.Source, want)
	}
	off := dot + 1 + len(want)
	path := s[off:]
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			j := i + 1
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			key := path[i+1 : j]
			if key == "" {
				return bad(off+i, "${%s} has an empty key", clipRef(s))
			}
			if k := strings.IndexAny(key, "]${ \t\r\n"); k >= 0 {
				return bad(off+i+1+k, "${%s}: key %s holds %q", clipRef(s), quoteShort(key), key[k])
			}
			r.Path = append(r.Path, PathSeg{Key: key})
			i = j
		case '[':
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return bad(off+i, "${%s}: '[' is not closed with ']'", clipRef(s))
			}
			num := path[i+1 : i+j]
			n, err := strconv.Atoi(num)
			if err != nil || n < 0 || num == "" || num[0] == '+' || len(num) > 1 && num[0] == '0' {
				return bad(off+i+1, "${%s}: index %s is not a whole number from 0", clipRef(s), quoteShort(num))
			}
			r.Path = append(r.Path, PathSeg{Index: n, IsIndex: true})
			i += j + 1
		default:
			return bad(off+i, "${%s}: want '.' or '[' at %q", clipRef(s), path[i])
		}
	}
	return r, nil
}

func clipRef(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

// Lookup returns the value at r's path in src (the workflow's input or the
// step's output, valid JSON); ok is false when a key or index is missing,
// and missing says which part of the path.
func (r Ref) Lookup(src json.RawMessage) (value json.RawMessage, missing string, ok bool) {
	cur := src
	for i, p := range r.Path {
		next, found := child(cur, p)
		if !found {
			return nil, Ref{Source: r.Source, Path: r.Path[:i+1]}.String(), false
		}
		cur = next
	}
	return cur, "", true
}

// child is one step down raw by key or index.
func child(raw json.RawMessage, p PathSeg) (json.RawMessage, bool) {
	if p.IsIndex {
		var arr []json.RawMessage
		if kindOf(raw) != "an array" || json.Unmarshal(raw, &arr) != nil || p.Index >= len(arr) {
			return nil, false
		}
		return arr[p.Index], true
	}
	var obj map[string]json.RawMessage
	if kindOf(raw) != "an object" || json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	v, ok := obj[p.Key]
	return v, ok
}

// Render gives the template's value: the referenced value itself when the
// template is one whole reference, else a JSON string with each reference
// substituted as text (strings as they are, other values as compact JSON).
// lookup returns a source's JSON (false: unknown source).
func (t Template) Render(lookup func(source string) (json.RawMessage, bool)) (json.RawMessage, error) {
	resolve := func(r *Ref) (json.RawMessage, error) {
		src, ok := lookup(r.Source)
		if !ok {
			return nil, errorf("reference", "", 0, "%s: no such value (step %s has no output)", r, quoteShort(r.Source))
		}
		v, missing, ok := r.Lookup(src)
		if !ok {
			return nil, errorf("reference", "", 0, "%s: %s is not there", r, missing)
		}
		return v, nil
	}
	if t.Whole() {
		v, err := resolve(t.parts[0].ref)
		if err != nil {
			return nil, err
		}
		return compact(v), nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := resolve(p.ref)
		if err != nil {
			return nil, err
		}
		if kindOf(v) == "a string" {
			var s string
			_ = json.Unmarshal(v, &s)
			b.WriteString(s)
		} else {
			b.Write(compact(v))
		}
		if b.Len() > MaxRenderedInputBytes {
			return nil, errorf("reference", "", 0, "the rendered string is over %d bytes", MaxRenderedInputBytes)
		}
	}
	return marshalPlain(b.String())
}

// RenderInput builds the step's input object from its input_mapping: each
// string value is a template rendered against the workflow's input and the
// outputs of earlier steps (by step id); other values pass as they are. The
// error names the step and the mapping key.
func (s *WorkflowStep) RenderInput(input json.RawMessage, outputs map[string]json.RawMessage) (json.RawMessage, error) {
	lookup := func(source string) (json.RawMessage, bool) {
		if source == WorkflowSource {
			if len(input) == 0 {
				return json.RawMessage("null"), true
			}
			return input, true
		}
		v, ok := outputs[source]
		return v, ok
	}
	keys := make([]string, 0, len(s.InputMapping))
	for k := range s.InputMapping {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		raw := s.InputMapping[k]
		path := join(join(join("steps", s.ID), "input_mapping"), k)
		v := raw
		if kindOf(raw) == "a string" {
			var str string
			if err := json.Unmarshal(raw, &str); err != nil {
				return nil, errorf("step input", path, 0, "is not a valid string")
			}
			t, err := ParseTemplate(str)
			if err != nil {
				return nil, refErr("step input", path, err)
			}
			if v, err = t.Render(lookup); err != nil {
				return nil, refErr("step input", path, err)
			}
		}
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := marshalPlain(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(v)
		if b.Len() > MaxRenderedInputBytes {
			return nil, errorf("step input", path, 0, "the step's input is over %d bytes once rendered", MaxRenderedInputBytes)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// refErr places a reference error at a mapping path; the offset inside the
// string is not an offset in the document, so it goes into the message.
func refErr(what, path string, err error) *Error {
	e, ok := err.(*Error)
	if !ok {
		return errorf(what, path, 0, "%v", err)
	}
	msg := e.Message
	if e.Offset > 0 {
		msg += " (at byte " + strconv.Itoa(e.Offset) + " of the string)"
	}
	return errorf(what, path, 0, "%s", msg)
}
