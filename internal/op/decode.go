package op

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// decodeStrict decodes raw into cfg, refusing unknown fields and trailing data.
// Errors are ValidationErrors whose Path is the JSON path of the problem
// ("operation.FilterData.conditions" or "operation.FilterData"), so the validator
// can point an agent at the exact field it got wrong.
func decodeStrict(raw json.RawMessage, cfg any, opName string) error {
	return decodeStrictAt(raw, cfg, "operation."+opName, opName)
}

// decodeStrictAt is decodeStrict for a nested object at JSON path base
// ("operation.TransformData.config"); what names it in messages.
func decodeStrictAt(raw json.RawMessage, cfg any, base, what string) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return invalidConfig(base, "%s needs a configuration object", what)
	}
	if trimmed[0] != '{' {
		return invalidConfig(base, "%s must be a JSON object", base)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return decodeFault(err, raw, cfg, base, what)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalidConfig(base, "%s configuration has data after the object", what)
	}
	// encoding/json matches keys case-insensitively ("InputPath" fills
	// inputPath); the protocol's names are exact, so check them once more.
	var generic any
	if json.Unmarshal(raw, &generic) == nil {
		if path, problem, ok := locateProblem(generic, reflect.TypeOf(cfg), base); ok {
			return invalidConfig(path, "%s", problem).WithSuggestions("Field names are case-sensitive")
		}
	}
	return nil
}

// decodeFault turns an encoding/json error into a ValidationError naming the
// field. raw is walked again to find the full JSON path (with array indexes),
// which encoding/json does not report.
func decodeFault(err error, raw json.RawMessage, cfg any, base, what string) *fault.Error {
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return invalidConfig(base, "%s configuration is not valid JSON (offset %d)", what, syntaxErr.Offset).WithCause(err)
	}
	var generic any
	if json.Unmarshal(raw, &generic) == nil {
		if path, problem, ok := locateProblem(generic, reflect.TypeOf(cfg), base); ok {
			fe := invalidConfig(path, "%s", problem).WithCause(err)
			if strings.Contains(problem, "no field") {
				fe.WithSuggestions("Remove the field or check its spelling")
			}
			return fe
		}
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		path := base
		if typeErr.Field != "" {
			path = base + "." + typeErr.Field
		}
		return invalidConfig(path, "%s must be %s, not a JSON %s", path, jsonKind(typeErr.Type.Kind()), typeErr.Value).WithCause(err)
	}
	return invalidConfig(base, "%s configuration is invalid: %s", what, err.Error()).WithCause(err)
}

// locateProblem walks a decoded JSON value beside the Go type it should fill
// and returns the JSON path of the first unknown key or mismatched type.
func locateProblem(v any, t reflect.Type, path string) (string, string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t == reflect.TypeOf(json.RawMessage(nil)) || t.Kind() == reflect.Interface {
		return "", "", false // null fits anything; raw values are checked later
	}
	want := jsonKind(t.Kind())
	switch x := v.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Struct:
			fields := jsonFields(t)
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				ft, ok := fields[k]
				if !ok {
					return path + "." + k, fmt.Sprintf("%s has no field %q", path, k), true
				}
				if p, m, ok := locateProblem(x[k], ft, path+"."+k); ok {
					return p, m, true
				}
			}
			return "", "", false
		case reflect.Map:
			for k, e := range x {
				if p, m, ok := locateProblem(e, t.Elem(), path+"."+k); ok {
					return p, m, true
				}
			}
			return "", "", false
		}
		return path, fmt.Sprintf("%s must be %s, not an object", path, want), true
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return path, fmt.Sprintf("%s must be %s, not an array", path, want), true
		}
		for i, e := range x {
			if p, m, ok := locateProblem(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, m, true
			}
		}
		return "", "", false
	case string:
		if t.Kind() != reflect.String {
			return path, fmt.Sprintf("%s must be %s, not a string", path, want), true
		}
	case bool:
		if t.Kind() != reflect.Bool {
			return path, fmt.Sprintf("%s must be %s, not a boolean", path, want), true
		}
	case float64:
		switch t.Kind() {
		case reflect.Float32, reflect.Float64:
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if x != float64(int64(x)) {
				return path, fmt.Sprintf("%s must be a whole number, not %v", path, x), true
			}
		default:
			return path, fmt.Sprintf("%s must be %s, not a number", path, want), true
		}
	}
	return "", "", false
}

// jsonFields maps the JSON names of struct type t's fields (embedded structs
// flattened) to their types. Results are cached per type: every config decode asks.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := computeJSONFields(t)
	fieldCache.Store(t, m)
	return m
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type (read-only once stored)

func computeJSONFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range computeJSONFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// jsonKind names a Go kind the way an agent writing JSON thinks of it.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + k.String()
}

// invalidConfig is a configuration error at the JSON path jsonPath.
func invalidConfig(jsonPath, format string, args ...any) *fault.Error {
	return fault.Typed(fault.Invalid, fault.ValidationError, format, args...).At(0, jsonPath)
}

// parseConfigPath parses a data-model path given in a config field.
func parseConfigPath(s, jsonPath string) (a2e.Path, error) {
	if s == "" {
		return a2e.Path{}, invalidConfig(jsonPath, "%s is required", jsonPath).
			WithSuggestions("Give a data-model path such as /workflow/users")
	}
	p, err := a2e.ParsePath(s)
	if err != nil {
		return a2e.Path{}, invalidConfig(jsonPath, "%s: %s", jsonPath, err.Error()).WithCause(err).
			WithSuggestions("Paths look like /workflow/users, /workflow/users[0].name or /input/x")
	}
	return p, nil
}

// parseOutputPath parses an outputPath; it must be writable (under /workflow).
func parseOutputPath(s, jsonPath string) (a2e.Path, error) {
	p, err := parseConfigPath(s, jsonPath)
	if err != nil {
		return p, err
	}
	if p.Root != a2e.RootWorkflow {
		return a2e.Path{}, invalidConfig(jsonPath, "%s: %s is read-only; outputs go under /workflow/", jsonPath, s)
	}
	return p, nil
}

// parseItemField parses a field path relative to an item ("profile.age", "tags[0]").
func parseItemField(s, jsonPath string, allowEmpty bool) (a2e.Path, error) {
	if s == "" && !allowEmpty {
		return a2e.Path{}, invalidConfig(jsonPath, "%s is required", jsonPath).
			WithSuggestions("Give a field inside each item, such as status or profile.age")
	}
	p, err := a2e.ParseField(s)
	if err != nil {
		return a2e.Path{}, invalidConfig(jsonPath, "%s: %s", jsonPath, err.Error()).WithCause(err).
			WithSuggestions("Field paths look like status, profile.age or tags[0]")
	}
	return p, nil
}

// oneOf checks that v is one of allowed, naming the choices when it is not.
func oneOf(v string, allowed []string, jsonPath, what string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	if v == "" {
		return invalidConfig(jsonPath, "%s is required", jsonPath).
			WithSuggestions("Use one of: " + strings.Join(allowed, ", "))
	}
	return invalidConfig(jsonPath, "unknown %s %q at %s", what, v, jsonPath).
		WithSuggestions("Use one of: " + strings.Join(allowed, ", "))
}

// dataError is a run-time problem with the data an operation read.
func dataError(path a2e.Path, format string, args ...any) *fault.Error {
	return fault.Typed(fault.Invalid, fault.DataError, format, args...).WithDetail("path", path.String())
}

// readArray reads p from data and requires an array, naming the op in the error.
func readArray(data Data, p a2e.Path, opName string) ([]any, error) {
	v, err := data.Get(p)
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, dataError(p, "%s is %s, %s needs an array", p, datamodel.KindOf(v), opName)
	}
	return arr, nil
}

// ctxFault turns a context error into a TimeoutError when the deadline passed; a
// cancellation is returned as it is, so the engine sees it for what it is.
func ctxFault(err error, what string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fault.Typed(fault.Timeout, fault.TimeoutError, "%s ran out of time", what).WithCause(err).
			WithSuggestions("Raise the operation's timeout or work on less data")
	}
	return err
}

// validateCommon checks the fields every operation may carry against the ranges
// of the published schemas.
func validateCommon(c a2e.Common, base string) error {
	if c.Timeout != nil && (*c.Timeout < 1 || *c.Timeout > 600000) {
		return invalidConfig(base+".timeout", "%s.timeout must be 1..600000 ms, got %d", base, *c.Timeout)
	}
	if r := c.Retry; r != nil {
		if r.MaxRetries != nil && (*r.MaxRetries < 0 || *r.MaxRetries > 10) {
			return invalidConfig(base+".retry.maxRetries", "%s.retry.maxRetries must be 0..10, got %d", base, *r.MaxRetries)
		}
		if r.InitialDelayMs != nil && (*r.InitialDelayMs < 0 || *r.InitialDelayMs > 600000) {
			return invalidConfig(base+".retry.initialDelayMs", "%s.retry.initialDelayMs must be 0..600000, got %d", base, *r.InitialDelayMs)
		}
		if r.MaxDelayMs != nil && (*r.MaxDelayMs < 0 || *r.MaxDelayMs > 600000) {
			return invalidConfig(base+".retry.maxDelayMs", "%s.retry.maxDelayMs must be 0..600000, got %d", base, *r.MaxDelayMs)
		}
	}
	return nil
}

// countRange checks a list's length against the schema's bounds.
func countRange(n, min, max int, jsonPath, what string) *fault.Error {
	if n < min {
		return invalidConfig(jsonPath, "%s needs at least %d %s, got %d", jsonPath, min, what, n)
	}
	if n > max {
		return invalidConfig(jsonPath, "%s allows at most %d %s, got %d", jsonPath, max, what, n)
	}
	return nil
}

// withOp names the operation in a fault that does not name one yet.
func withOp(err error, id string) error {
	if fe, ok := fault.As(err); ok && fe.OperationID == "" && id != "" {
		fe.OperationID = id
	}
	return err
}
