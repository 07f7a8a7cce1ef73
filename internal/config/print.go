package config

import (
	"encoding/json"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Entry is one key of the configuration as `sluice config print` shows it.
type Entry struct {
	// Path is the dotted key path ("log.level"); Depth is its nesting, for
	// indenting a YAML rendering.
	Path  string
	Key   string
	Depth int
	// Value is the value as YAML flow text that Parse reads back (a JSON
	// string, number, list or object); "" for a section (a struct), whose
	// keys follow it. A value that may hold a secret is redacted.
	Value   string
	Section bool
}

// Entries lists every key of c in file order, sections before their keys,
// secrets redacted: a value of a field tagged `redact:"url"` shows its URL
// without the password, and the admin key only whether it is set.
func Entries(c *Config) []Entry {
	var out []Entry
	entries(reflect.ValueOf(c).Elem(), "", 0, &out)
	out = append(out, Entry{Path: "admin_key", Key: "admin_key", Value: strconv.Quote(c.AdminKey.String())})
	return out
}

func entries(v reflect.Value, path string, depth int, out *[]Entry) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		sub := join(path, name)
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && fv.Type() != durationType {
			*out = append(*out, Entry{Path: sub, Key: name, Depth: depth, Section: true})
			entries(fv, sub, depth+1, out)
			continue
		}
		text := flowText(fv, f.Tag.Get("unit"))
		if f.Tag.Get("redact") == "url" {
			text = strconv.Quote(redactURL(fv.String()))
		}
		*out = append(*out, Entry{Path: sub, Key: name, Depth: depth, Value: text})
	}
}

// redactURL is s with any password of its URL replaced by "xxxxx"; text
// that does not parse as a URL but holds an '@' is not shown at all.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if strings.Contains(s, "@") {
			return "[unparsable URL]"
		}
		return s
	}
	return u.Redacted()
}

// flowText writes a value as YAML flow text the decoder reads back.
func flowText(v reflect.Value, unit string) string {
	b, _ := json.Marshal(plain(v, unit)) // plain values only: cannot fail
	return string(b)
}

// plain turns a configuration value into strings, numbers, booleans, lists
// and maps keyed by the YAML names, durations and sizes written as in the
// defaults file ("30s", "1MiB").
func plain(v reflect.Value, unit string) any {
	switch {
	case v.Type() == durationType:
		return fmtDuration(time.Duration(v.Int()))
	case v.Kind() == reflect.Int64 && unit == "bytes":
		if n := v.Int(); n != 0 && !strings.HasSuffix(fmtSize(n), " bytes") {
			return fmtSize(n)
		}
		return v.Int()
	case v.Kind() == reflect.Struct:
		m := map[string]any{}
		for name, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			switch v.Type().Field(f.index).Tag.Get("redact") {
			case "url":
				m[name] = redactURL(fv.String())
			case "env":
				m[name] = redactEnv(fv.Interface().([]string))
			default:
				m[name] = plain(fv, f.unit)
			}
		}
		return m
	case v.Kind() == reflect.Map:
		m := make(map[string]any, v.Len())
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			m[k.String()] = plain(v.MapIndex(k), "")
		}
		return m
	case v.Kind() == reflect.Slice:
		l := make([]any, v.Len())
		for i := range l {
			l[i] = plain(v.Index(i), "")
		}
		return l
	}
	return v.Interface()
}

// redactEnv shows NAME=value entries as NAME=[REDACTED]; a bare NAME (the
// server's own value passed on) shows as it is.
func redactEnv(env []string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		if name, _, ok := strings.Cut(e, "="); ok {
			e = name + "=[REDACTED]"
		}
		out[i] = e
	}
	return out
}
