package a2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The strict checker walks raw JSON alongside a Go type and reports every place
// they disagree, with its JSON path. encoding/json cannot do this: with
// DisallowUnknownFields it stops at the first unknown field and names no path,
// its type errors carry no array indexes, and it matches keys case-insensitively
// (so "OutputPath" would silently fill outputPath). The checker accepts a value
// only when encoding/json will decode it exactly, so decoding afterwards cannot
// fail.

var (
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	credentialRefType = reflect.TypeFor[CredentialRef]()
	apiCallType       = reflect.TypeFor[ApiCall]()
)

// fieldInfo describes one JSON field of a struct.
type fieldInfo struct {
	typ      reflect.Type
	required bool // its tag has no omitempty
}

type structInfo struct {
	names  []string // in declaration order, embedded fields first where declared
	byName map[string]fieldInfo
}

var structCache sync.Map // reflect.Type -> *structInfo

// fieldsOf lists the JSON fields of struct type t, flattening embedded structs
// without a tag (Common) as encoding/json does; their fields come last.
func fieldsOf(t reflect.Type) *structInfo {
	if v, ok := structCache.Load(t); ok {
		return v.(*structInfo)
	}
	si := &structInfo{byName: map[string]fieldInfo{}}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		var embedded []reflect.Type // listed after the operation's own fields
		defer func() {
			for _, e := range embedded {
				walk(e)
			}
		}()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				embedded = append(embedded, f.Type)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			si.names = append(si.names, name)
			si.byName[name] = fieldInfo{typ: f.Type, required: !strings.Contains(","+opts+",", ",omitempty,")}
		}
	}
	walk(t)
	v, _ := structCache.LoadOrStore(t, si)
	return v.(*structInfo)
}

// checker collects problems, bounded like a line's.
type checker struct {
	errs ErrorList
}

func (c *checker) add(path, format string, args ...any) {
	if len(c.errs) > maxLineErrors {
		return
	}
	if len(c.errs) == maxLineErrors {
		c.errs = append(c.errs, errorf(0, path, "too many problems; only the first %d are reported", maxLineErrors))
		return
	}
	c.errs = append(c.errs, errorf(0, path, "%s: %s", path, fmt.Sprintf(format, args...)))
}

func (c *checker) mismatch(path, want string, raw []byte) {
	c.add(path, "expected %s, got %s", want, jsonKind(raw))
}

// check compares valid JSON raw with type t at path.
func (c *checker) check(raw []byte, t reflect.Type, path string) {
	kind := jsonKind(raw)
	if t == rawMessageType {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if kind != "null" {
			c.check(raw, t.Elem(), path)
		}
	case reflect.Interface:
	case reflect.Struct:
		c.checkStruct(raw, t, path)
	case reflect.String:
		if kind != "string" {
			c.mismatch(path, "string", raw)
		}
	case reflect.Bool:
		if kind != "boolean" {
			c.mismatch(path, "boolean", raw)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if kind != "number" {
			c.mismatch(path, "number", raw)
			return
		}
		text := string(trimSpace(raw))
		if _, err := strconv.ParseInt(text, 10, t.Bits()); err != nil {
			// encoding/json reads integers with ParseInt: 1.0 and 1e3 are refused.
			if strings.ContainsAny(text, ".eE") {
				c.add(path, "expected an integer, got %s", clip(text))
			} else {
				c.add(path, "number %s is out of range", clip(text))
			}
		}
	case reflect.Float32, reflect.Float64:
		if kind != "number" {
			c.mismatch(path, "number", raw)
		}
	case reflect.Slice:
		if kind == "null" {
			return
		}
		items, err := elements(raw)
		if err != nil {
			c.mismatch(path, "array", raw)
			return
		}
		for i, it := range items {
			c.check(it, t.Elem(), indexPath(path, i))
		}
	case reflect.Map:
		if kind == "null" {
			return
		}
		ms, err := members(raw)
		if err != nil {
			c.mismatch(path, "object", raw)
			return
		}
		seen := make(map[string]bool, len(ms))
		for _, m := range ms {
			at := joinPath(path, m.key)
			if seen[m.key] {
				c.add(at, "duplicate key")
				continue
			}
			seen[m.key] = true
			c.check(m.value, t.Elem(), at)
		}
	default:
		c.add(path, "cannot be decoded (unsupported type %s)", t)
	}
}

func (c *checker) checkStruct(raw []byte, t reflect.Type, path string) {
	ms, err := members(raw)
	if err != nil {
		c.mismatch(path, "object", raw)
		return
	}
	si := fieldsOf(t)
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		at := joinPath(path, m.key)
		if seen[m.key] {
			c.add(at, "duplicate key")
			continue
		}
		seen[m.key] = true
		f, ok := si.byName[m.key]
		if !ok {
			if near := nearest(m.key, si.names); near != "" {
				c.add(at, "unknown field; did you mean %s?", near)
			} else {
				c.add(at, "unknown field; the fields are %s", strings.Join(si.names, ", "))
			}
			continue
		}
		c.check(m.value, f.typ, at)
		if t == apiCallType && m.key == "headers" {
			c.checkHeaders(m.value, at)
		}
	}
	for _, n := range si.names {
		if si.byName[n].required && !seen[n] {
			c.add(joinPath(path, n), "missing required field")
		}
	}
}

// checkHeaders checks that each header value is a string or a credentialRef.
func (c *checker) checkHeaders(raw []byte, path string) {
	ms, err := members(raw)
	if err != nil {
		return // already reported as a type mismatch
	}
	for _, m := range ms {
		at := joinPath(path, m.key)
		switch jsonKind(m.value) {
		case "string":
		case "object":
			c.check(m.value, credentialRefType, at)
		default:
			c.add(at, `expected a string or {"credentialRef":{"id":"..."}}, got %s`, jsonKind(m.value))
		}
	}
}
