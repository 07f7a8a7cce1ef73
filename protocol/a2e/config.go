package a2e

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// configTypes maps each operation of the catalog to its typed config.
var configTypes = map[string]reflect.Type{
	OpApiCall:       reflect.TypeFor[ApiCall](),
	OpFilterData:    reflect.TypeFor[FilterData](),
	OpTransformData: reflect.TypeFor[TransformData](),
	OpConditional:   reflect.TypeFor[Conditional](),
	OpLoop:          reflect.TypeFor[Loop](),
	OpStoreData:     reflect.TypeFor[StoreData](),
	OpLoadData:      reflect.TypeFor[LoadData](),
	OpWait:          reflect.TypeFor[Wait](),
	OpMergeData:     reflect.TypeFor[MergeData](),
	OpInvokeAgent:   reflect.TypeFor[InvokeAgent](),
}

// transformTypes maps each transform to its typed config.
var transformTypes = map[string]reflect.Type{
	TransformMap:       reflect.TypeFor[MapConfig](),
	TransformSort:      reflect.TypeFor[SortConfig](),
	TransformGroup:     reflect.TypeFor[GroupConfig](),
	TransformAggregate: reflect.TypeFor[AggregateConfig](),
	TransformSelect:    reflect.TypeFor[SelectConfig](),
}

// DecodeConfig decodes op's config strictly into a pointer to its typed config
// (*ApiCall, *FilterData, ..., *LoadData, *InvokeAgent).
//
// Strict means: an unknown field, a duplicate key, a value of the wrong JSON type
// and a missing required field (one whose json tag has no omitempty) are all
// problems; every one is reported, as an ErrorList of *Error whose Path starts at
// "operation.<Name>" ("operation.FilterData.conditions[1].operator") and whose
// Message starts with that path. ApiCall header values must be strings or
// {"credentialRef":{"id":"..."}}. Enumerations and ranges are left to the
// operation's factory and the JSON Schemas. The errors carry no line: the caller
// knows where the operation was defined.
func DecodeConfig(op Operation) (any, error) {
	t, ok := configTypes[op.Name]
	if !ok {
		return nil, ErrorList{errorf(0, "operation", "unknown operation %q; the catalog is %s",
			clip(op.Name), strings.Join(OperationNames, ", ")).suggest(didYouMean(op.Name, OperationNames))}
	}
	return decodeStrict(op.Config, t, joinPath("operation", op.Name))
}

// DecodeTransformConfig decodes t.Config strictly by t.Transform into *MapConfig,
// *SortConfig, *GroupConfig, *AggregateConfig or *SelectConfig, with the rules of
// DecodeConfig and paths under "operation.TransformData.config". Every transform
// needs a config; select takes exactly one of fields and field, map exactly one
// of expression and fields.
func DecodeTransformConfig(t *TransformData) (any, error) {
	const base = "operation.TransformData"
	if t == nil {
		return nil, ErrorList{errorf(0, base, "%s: no config", base)}
	}
	typ, ok := transformTypes[t.Transform]
	if !ok {
		return nil, ErrorList{errorf(0, base+".transform", "%s.transform: unknown transform %q; use one of %s",
			base, clip(t.Transform), strings.Join(TransformNames, ", ")).suggest(didYouMean(t.Transform, TransformNames))}
	}
	at := base + ".config"
	if raw := trimSpace(t.Config); len(raw) == 0 || string(raw) == "null" {
		return nil, ErrorList{errorf(0, at, "%s: missing required field; the %s transform needs a config", at, t.Transform)}
	}
	v, err := decodeStrict(t.Config, typ, at)
	if err != nil {
		return nil, err
	}
	either := func(a, b string, hasA, hasB bool) error {
		if hasA == hasB {
			return ErrorList{errorf(0, at, "%s: the %s transform takes exactly one of %q and %q", at, t.Transform, a, b)}
		}
		return nil
	}
	switch c := v.(type) {
	case *SelectConfig:
		err = either("fields", "field", len(c.Fields) > 0, c.Field != "")
	case *MapConfig:
		err = either("expression", "fields", c.Expression != "", len(c.Fields) > 0)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// decodeStrict checks raw against t (see strict.go) and then decodes it.
func decodeStrict(raw json.RawMessage, t reflect.Type, base string) (any, error) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if !json.Valid(raw) {
		return nil, ErrorList{errorf(0, base, "%s: %s", base, syntaxError(raw))}
	}
	c := checker{}
	c.check(raw, t, base)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	v := reflect.New(t)
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		// The checker accepts only what encoding/json decodes; this is a safety net.
		return nil, ErrorList{errorf(0, base, "%s: %v", base, err)}
	}
	return v.Interface(), nil
}

// ConfigFields lists the JSON field names of an operation's config (the common
// fields included) and which of them are required, for docs and tests.
func ConfigFields(name string) (fields, required []string, ok bool) {
	t, ok := configTypes[name]
	if !ok {
		return nil, nil, false
	}
	fi := fieldsOf(t)
	fields = slices.Clone(fi.names)
	for _, n := range fi.names {
		if fi.byName[n].required {
			required = append(required, n)
		}
	}
	return fields, required, true
}
