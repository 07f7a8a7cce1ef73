package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// A method's parameters are declared in its methodTable entry and checked
// there, once, before its handler runs: every gateway method takes a closed
// set of parameters, and a misspelt one is an error that names it, not a
// silent default. Parameters come from a JSON body, from the path and from
// the query string, so a value may be a string where a number, a boolean or
// a list is meant ("?async=true", "?limit=5", "?status=queued,running").

// paramKind is what a parameter holds, and how its lenient forms are read.
type paramKind int

const (
	pString   paramKind = iota // a JSON string
	pBool                      // a boolean, or "true"/"false"
	pInt                       // an integer in [min, max], or its decimal string; def when absent
	pSeconds                   // a number of seconds in (0, max]
	pObject                    // a JSON object
	pStrings                   // a list of strings, or one comma-separated string
	pTime                      // an RFC 3339 time as a string
	pWorkflow                  // a JSONL document as a string, or an array of message objects
	pAny                       // any JSON value
)

// param declares one parameter of a gateway method.
type param struct {
	name     string
	kind     paramKind
	required bool // present, not null, and for strings not empty
	// need says what a missing required parameter should hold, after
	// "is required: ".
	need string
	// want replaces the kind's phrase after "must be " in a type error.
	want          string
	def, min, max int // pInt; max alone bounds pSeconds
	// restPath is the path wildcard that gives the parameter on REST
	// routes (execution_id: the route's {id}); given, it wins.
	restPath string
}

func str(name string) param              { return param{name: name, kind: pString} }
func reqStr(name string) param           { return param{name: name, kind: pString, required: true} }
func boolean(name string) param          { return param{name: name, kind: pBool} }
func object(name string) param           { return param{name: name, kind: pObject} }
func strs(name string) param             { return param{name: name, kind: pStrings} }
func anyValue(name string) param         { return param{name: name, kind: pAny} }
func rfc3339(name string) param          { return param{name: name, kind: pTime} }
func seconds(name string, max int) param { return param{name: name, kind: pSeconds, max: max} }
func integer(name string, def, min, max int) param {
	return param{name: name, kind: pInt, def: def, min: min, max: max}
}

// pageParams are a list's cursor and page size.
func pageParams(def, max int) []param {
	return []param{str("cursor"), integer("limit", def, 1, max)}
}

// paramError is the error of a parameter's value, in the one shape every
// parameter error has: "params.<name>: <what is wrong>", with its path.
func paramError(name, format string, args ...any) *fault.Error {
	return fault.New(fault.Invalid, "params.%s: %s", name, fmt.Sprintf(format, args...)).WithDetail("path", "params."+name)
}

// args are a call's parameters once checked against its method's spec: each
// accessor returns the value in its declared type, the default when absent.
// Reading a parameter the method does not declare is a defect (it panics,
// and the dispatcher answers an internal error).
type args struct {
	method string
	spec   []param
	given  map[string]any // as sent, nulls included
	// converted are the values read from another form than their kind's
	// Go type (a query string's "5", a JSON array of strings); the others
	// are read from given as they are.
	converted map[string]any
}

func (a args) lookup(name string, kind paramKind) any {
	for _, p := range a.spec {
		if p.name == name {
			if p.kind != kind && !(kind == pAny) {
				panic(fmt.Sprintf("gateway: %s reads parameter %s as another kind than it declares", a.method, name))
			}
			if v, ok := a.converted[name]; ok {
				return v
			}
			if v := a.given[name]; v != nil {
				return v
			}
			if p.kind == pInt {
				return p.def
			}
			return nil
		}
	}
	panic(fmt.Sprintf("gateway: %s reads parameter %s, which its table entry does not declare", a.method, name))
}

// Has says the parameter was sent, even as null.
func (a args) Has(name string) bool {
	a.lookup(name, pAny)
	_, ok := a.given[name]
	return ok
}

func (a args) String(name string) string {
	s, _ := a.lookup(name, pString).(string)
	return s
}

func (a args) Bool(name string) bool {
	b, _ := a.lookup(name, pBool).(bool)
	return b
}

func (a args) Int(name string) int {
	n, _ := a.lookup(name, pInt).(int)
	return n
}

// Seconds is 0 when absent.
func (a args) Seconds(name string) float64 {
	f, _ := a.lookup(name, pSeconds).(float64)
	return f
}

func (a args) Object(name string) map[string]any {
	m, _ := a.lookup(name, pObject).(map[string]any)
	return m
}

func (a args) Strings(name string) []string {
	l, _ := a.lookup(name, pStrings).([]string)
	return l
}

// Time is the zero time when absent.
func (a args) Time(name string) time.Time {
	t, _ := a.lookup(name, pTime).(time.Time)
	return t
}

// Any is the value as sent (nil when absent or null), whatever its kind.
func (a args) Any(name string) any { return a.lookup(name, pAny) }

// decodeParams checks m against spec: each declared parameter's type, bounds
// and presence (the first problem in the spec's order), then that every key
// is declared, with the closest declared name as a suggestion.
func decodeParams(method string, spec []param, m map[string]any) (args, error) {
	a := args{method: method, spec: spec, given: m}
	for _, p := range spec {
		v := m[p.name]
		fromPath := false
		if rest := m[p.restPath]; p.restPath != "" && rest != nil {
			v, fromPath = rest, true
		}
		if v == nil {
			if p.required {
				return a, missing(p)
			}
			continue
		}
		out, err := p.convert(v)
		if err != nil {
			return a, err
		}
		if p.required && out == "" {
			return a, missing(p)
		}
		if out == nil && fromPath {
			out = v // given under another name: read from there
		}
		if out != nil {
			if a.converted == nil {
				a.converted = map[string]any{}
			}
			a.converted[p.name] = out
		}
	}
	return a, unknownParams(spec, m)
}

func missing(p param) *fault.Error {
	if p.need != "" {
		return paramError(p.name, "is required: %s", p.need)
	}
	return paramError(p.name, "is required")
}

// convert checks v as p's kind and reads the lenient string forms of query
// strings: the value in its kind's Go type when v is in another form, nil
// when v is of that type already (or, for a required string, v itself, to
// be checked for emptiness).
func (p param) convert(v any) (any, error) {
	bad := func(format string, args ...any) (any, error) {
		if p.want != "" {
			return nil, paramError(p.name, "must be %s", p.want)
		}
		return nil, paramError(p.name, format, args...)
	}
	switch p.kind {
	case pString:
		if s, ok := v.(string); ok {
			if p.required && s == "" {
				return s, nil
			}
			return nil, nil
		}
		return bad("must be a string")
	case pBool:
		switch x := v.(type) {
		case bool:
			return nil, nil
		case string:
			b, err := strconv.ParseBool(x)
			if err != nil {
				return bad("must be true or false, not %q", x)
			}
			return b, nil
		}
		return bad("must be a boolean")
	case pInt:
		return p.integer(v)
	case pSeconds:
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) || f <= 0 || f > float64(p.max) {
			return bad("must be a number of seconds from 0 to %d", p.max)
		}
		return nil, nil
	case pObject:
		if _, ok := v.(map[string]any); ok {
			return nil, nil
		}
		return bad("must be an object")
	case pStrings:
		switch x := v.(type) {
		case string:
			if x == "" {
				return []string(nil), nil
			}
			return strings.Split(x, ","), nil
		case []any:
			out := make([]string, 0, len(x))
			for i, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, paramError(fmt.Sprintf("%s[%d]", p.name, i), "must be a string")
				}
				out = append(out, s)
			}
			return out, nil
		}
		return bad("must be a list of strings")
	case pTime:
		if s, ok := v.(string); ok {
			if s == "" {
				return time.Time{}, nil
			}
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				return t, nil
			}
		}
		return bad("must be an RFC 3339 time, like 2027-01-31T00:00:00Z")
	case pWorkflow:
		switch x := v.(type) {
		case string:
			if strings.TrimSpace(x) == "" {
				return nil, paramError(p.name, "is empty")
			}
			return nil, nil
		case []any:
			for i, m := range x {
				if _, ok := m.(map[string]any); !ok {
					return nil, paramError(p.name, "element %d is not a message object", i)
				}
			}
			return nil, nil
		}
		return bad("must be a string (JSONL) or an array of message objects")
	}
	return nil, nil // pAny
}

func (p param) integer(v any) (any, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return nil, paramError(p.name, "must be a number")
		}
	case string:
		n, err := strconv.Atoi(x)
		if err != nil {
			return nil, paramError(p.name, "must be an integer, not %q", x)
		}
		f = float64(n)
	default:
		return nil, paramError(p.name, "must be an integer")
	}
	if f != math.Trunc(f) || f < float64(p.min) || f > float64(p.max) {
		return nil, paramError(p.name, "must be an integer from %d to %d", p.min, p.max)
	}
	return int(f), nil
}

// unknownParams is the error naming the first key of m (in order) that spec
// does not declare, or nil.
func unknownParams(spec []param, m map[string]any) error {
	var first string
	for k := range m {
		if !declares(spec, k) && (first == "" || k < first) {
			first = k
		}
	}
	if first == "" {
		return nil
	}
	known := make([]string, 0, len(spec))
	for _, p := range spec {
		known = append(known, p.name)
		if p.restPath != "" {
			known = append(known, p.restPath)
		}
	}
	slices.Sort(known)
	takes := strings.Join(known, ", ")
	if takes == "" {
		takes = "no parameters"
	}
	fe := paramError(first, "unknown parameter (this call takes %s)", takes)
	if s := closest(first, known); s != "" {
		fe = fe.WithSuggestions(fmt.Sprintf("Did you mean %s?", s))
	}
	return fe
}

func declares(spec []param, name string) bool {
	for _, p := range spec {
		if p.name == name || p.restPath == name {
			return true
		}
	}
	return false
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
