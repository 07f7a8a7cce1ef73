package session

import (
	"encoding/json"
	"slices"
)

// Bounds of ParametersOf: a schema comes from sluice or from an MCP server,
// and the list it gives is a description for a model, not a validator.
const (
	maxParameterDepth = 4   // nesting levels of properties described
	maxParameters     = 256 // parameters described at each level
)

// ParametersOf describes the properties of an object JSON Schema as the SDK's
// list of ToolParameter, in name order: each property's type (the first
// non-null one of a list; "any" when the schema gives none), description,
// whether the schema's required list names it, its enum when every value is
// a string, and the properties of an object property, to maxParameterDepth
// levels. A schema that is absent, not an object or without properties
// describes no parameters: an empty list, never nil. The schema itself
// travels whole beside the list (ToolInfo.InputSchema), so nothing is lost.
func ParametersOf(schema json.RawMessage) []ToolParameter {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return []ToolParameter{}
	}
	return parametersOf(s, 1)
}

func parametersOf(schema map[string]any, depth int) []ToolParameter {
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	names = names[:min(len(names), maxParameters)]
	required, _ := schema["required"].([]any)
	out := make([]ToolParameter, 0, len(names))
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		tp := ToolParameter{Name: n, Type: schemaType(p), Required: slices.Contains(required, any(n))}
		tp.Description, _ = p["description"].(string)
		tp.Enum = stringEnum(p["enum"])
		if _, has := p["properties"].(map[string]any); has && depth < maxParameterDepth {
			nested := parametersOf(p, depth+1)
			byName := make(map[string]ToolParameter, len(nested))
			for _, q := range nested {
				byName[q.Name] = q
			}
			tp.Properties, _ = json.Marshal(byName) // plain values: cannot fail
		}
		out = append(out, tp)
	}
	return out
}

// schemaType is a property's JSON Schema type as one name.
func schemaType(p map[string]any) string {
	switch t := p["type"].(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				return s
			}
		}
	}
	switch {
	case p["properties"] != nil:
		return "object"
	case p["items"] != nil:
		return "array"
	}
	return "any"
}

// stringEnum is an enum whose values are all strings, else nil (the SDK's
// enum is a list of strings; the schema keeps the others).
func stringEnum(v any) []string {
	vals, ok := v.([]any)
	if !ok || len(vals) == 0 {
		return nil
	}
	out := make([]string, 0, len(vals))
	for _, x := range vals {
		s, ok := x.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}
