package capability

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// JSON Schema keywords kept from a parameter's node; the rest (lifecycle,
// mapping, $ref, example...) is A2S, not schema.
var schemaKeywords = []string{"type", "format", "enum", "const", "properties", "items", "required",
	"minimum", "maximum", "minLength", "maxLength", "pattern", "description", "additionalProperties", "nullable"}

// paramSchema is the JSON Schema of one parameter.
// ParamSchema is the JSON Schema of one parameter (a capability's input or
// output, for tool descriptions).
func ParamSchema(p *a2s.Param) map[string]any { return paramSchema(p) }

func paramSchema(p *a2s.Param) map[string]any {
	out := map[string]any{}
	if p.Schema != nil {
		if m, ok := p.Schema.Interface().(map[string]any); ok {
			for _, k := range schemaKeywords {
				if v, ok := m[k]; ok {
					out[k] = v
				}
			}
		}
	}
	if len(p.Fields) > 0 {
		props := map[string]any{}
		for _, f := range p.Fields {
			props[f.Name] = paramSchema(f)
		}
		out["type"], out["properties"] = "object", props
	}
	fixTypes(out)
	return out
}

// fixTypes turns OpenAPI's nullable and a "float" or "int" type into JSON
// Schema, recursively.
func fixTypes(s map[string]any) {
	if t, ok := s["type"].(string); ok {
		switch t {
		case "float", "double":
			s["type"] = "number"
		case "int", "long":
			s["type"] = "integer"
		}
		if n, _ := s["nullable"].(bool); n {
			s["type"] = []any{s["type"], "null"}
		}
	}
	delete(s, "nullable")
	if props, ok := s["properties"].(map[string]any); ok {
		for _, v := range props {
			if m, ok := v.(map[string]any); ok {
				fixTypes(m)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		fixTypes(items)
	}
}

// expectedAnswer is the JSON Schema of the answer a waiting task expects: a
// prompt's format (name: type, or name: schema), else the task's outputs.
// Every named member is required.
func expectedAnswer(t *a2s.Task) map[string]any {
	props := map[string]any{}
	required := []any{}
	if t.Prompt != nil && t.Prompt.Format != nil && t.Prompt.Format.Kind == a2s.KindObject {
		for _, m := range t.Prompt.Format.Keys {
			switch v := m.Value.Interface().(type) {
			case string:
				props[m.Name] = fixed(map[string]any{"type": v})
			case map[string]any:
				props[m.Name] = fixed(v)
			default:
				props[m.Name] = map[string]any{}
			}
			required = append(required, m.Name)
		}
	} else {
		for _, p := range t.Outputs {
			props[p.Name] = paramSchema(p)
			required = append(required, p.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func fixed(m map[string]any) map[string]any {
	fixTypes(m)
	return m
}

// compileSchema compiles a schema built here.
func compileSchema(schema map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("answer.json", schema); err != nil {
		return nil, err
	}
	return c.Compile("answer.json")
}

// checkAnswer validates an answer against the expected schema, naming what
// is wrong.
func checkAnswer(schema map[string]any, answer any) error {
	s, err := compileSchema(schema)
	if err != nil {
		return fmt.Errorf("the expected format is not a valid schema: %v", err)
	}
	if err := s.Validate(answer); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("does not match the expected format: %s", flatten(ve))
		}
		return err
	}
	return nil
}

var printer = message.NewPrinter(language.English)

// flatten lists the leaf errors of a validation error, with where.
func flatten(ve *jsonschema.ValidationError) string {
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			parts = append(parts, at+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(parts, "; ")
}
