package console

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A form generated from a JSON Schema object (a pending decision's
// expected_output): one control per top-level property. Anything the form
// cannot express (nested objects, arrays) falls back to a JSON text area.

// field is one control of a generated form.
type field struct {
	Name     string
	Type     string // string, number, integer, boolean
	Enum     []string
	Required bool
	Help     string
}

// fieldPrefix and typePrefix name a generated control and its type in the
// posted form.
const (
	fieldPrefix = "field."
	typePrefix  = "type."
)

// fieldsOf reads schema's properties as fields; ok is false when a
// property needs more than a plain control.
func fieldsOf(schema map[string]any) (fields []field, ok bool) {
	if schema == nil || schema["type"] != "object" {
		return nil, false
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return nil, false
	}
	var required []string
	if list, ok := schema["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required = append(required, s)
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		f := field{Name: n, Required: slices.Contains(required, n)}
		f.Type, _ = p["type"].(string)
		f.Help, _ = p["description"].(string)
		switch f.Type {
		case "string", "number", "integer", "boolean":
		default:
			return nil, false
		}
		if enum, ok := p["enum"].([]any); ok {
			for _, e := range enum {
				s, ok := e.(string)
				if !ok {
					return nil, false
				}
				f.Enum = append(f.Enum, s)
			}
		}
		fields = append(fields, f)
	}
	return fields, true
}

// answerOf is the object a generated form posted, each value of its
// field's type; "" leaves a field out.
func answerOf(form url.Values) (map[string]any, string) {
	out := map[string]any{}
	for k, vs := range form {
		name, ok := strings.CutPrefix(k, fieldPrefix)
		if !ok || len(vs) == 0 || vs[0] == "" {
			continue
		}
		v := vs[0]
		switch form.Get(typePrefix + name) {
		case "number":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, name + ": want a number"
			}
			out[name] = n
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, name + ": want a whole number"
			}
			out[name] = n
		case "boolean":
			out[name] = v == "true"
		case "json":
			var x any
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				return nil, name + ": want JSON"
			}
			out[name] = x
		default:
			out[name] = v
		}
	}
	return out, ""
}
