package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// params reads a call's parameters with their types, and says which keys were
// not used: every gateway method takes a closed set of parameters, and a
// misspelt one is an error that names it, not a silent default. Parameters come
// from a JSON body, from the path and from the query string, so a value may be
// a string where a number or a boolean is meant ("?async=true").
type params struct {
	m    map[string]any
	used []string
	err  *fault.Error
}

func newParams(m map[string]any) *params { return &params{m: m} }

func (p *params) take(name string) (any, bool) {
	p.used = append(p.used, name)
	v, ok := p.m[name]
	if v == nil {
		return nil, false
	}
	return v, ok
}

func (p *params) fail(name, format string, args ...any) {
	if p.err == nil {
		p.err = fault.New(fault.Invalid, "params.%s: %s", name, fmt.Sprintf(format, args...)).WithDetail("path", "params."+name)
	}
}

// String is an optional string parameter ("" when absent).
func (p *params) String(name string) string {
	v, ok := p.take(name)
	if !ok {
		return ""
	}
	s, isString := v.(string)
	if !isString {
		p.fail(name, "must be a string")
	}
	return s
}

// RequiredString is a string parameter that must be present and not empty.
func (p *params) RequiredString(name string) string {
	s := p.String(name)
	if s == "" && p.err == nil {
		p.fail(name, "is required")
	}
	return s
}

// Bool is an optional boolean parameter; "true"/"false" strings are accepted.
func (p *params) Bool(name string) bool {
	v, ok := p.take(name)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case string:
		b, err := strconv.ParseBool(x)
		if err != nil {
			p.fail(name, "must be true or false, not %q", x)
		}
		return b
	}
	p.fail(name, "must be a boolean")
	return false
}

// Int is an optional integer parameter in [min, max]; def when absent.
func (p *params) Int(name string, def, min, max int) int {
	v, ok := p.take(name)
	if !ok {
		return def
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			p.fail(name, "must be a number")
			return def
		}
	case string:
		n, err := strconv.Atoi(x)
		if err != nil {
			p.fail(name, "must be an integer, not %q", x)
			return def
		}
		f = float64(n)
	default:
		p.fail(name, "must be an integer")
		return def
	}
	if f != math.Trunc(f) || f < float64(min) || f > float64(max) {
		p.fail(name, "must be an integer from %d to %d", min, max)
		return def
	}
	return int(f)
}

// Object is an optional JSON object parameter.
func (p *params) Object(name string) map[string]any {
	v, ok := p.take(name)
	if !ok {
		return nil
	}
	m, isObject := v.(map[string]any)
	if !isObject {
		p.fail(name, "must be an object")
	}
	return m
}

// Any is an optional parameter of any JSON type.
func (p *params) Any(name string) any {
	v, _ := p.take(name)
	return v
}

// Strings is an optional list of strings; a string is read as a
// comma-separated list (query strings: ?status=queued,running).
func (p *params) Strings(name string) []string {
	v, ok := p.take(name)
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil
		}
		return strings.Split(x, ",")
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, isString := e.(string)
			if !isString {
				p.fail(fmt.Sprintf("%s[%d]", name, i), "must be a string")
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	p.fail(name, "must be a list of strings")
	return nil
}

// Done returns the first problem, or an error naming a parameter that no
// reader asked for (with the closest known name as a suggestion).
func (p *params) Done() error {
	if p.err != nil {
		return p.err
	}
	keys := make([]string, 0, len(p.m))
	for k := range p.m {
		if !slices.Contains(p.used, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	known := slices.Clone(p.used)
	slices.Sort(known)
	fe := fault.New(fault.Invalid, "params.%s: unknown parameter (this call takes %s)", keys[0], strings.Join(slices.Compact(known), ", ")).
		WithDetail("path", "params."+keys[0])
	if s := closest(keys[0], known); s != "" {
		fe = fe.WithSuggestions(fmt.Sprintf("Did you mean %s?", s))
	}
	return fe
}

// closest is the known name within edit distance 2 of name, or "".
func closest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := a2e.EditDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// remarshal decodes a parameter object into a typed struct, refusing unknown
// fields: {"permisions": ...} inside it is named, not ignored.
func remarshal(m map[string]any, dst any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%s", cleanJSONError(err))
	}
	return nil
}
