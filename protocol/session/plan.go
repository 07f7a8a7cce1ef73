package session

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A plan is how the decoder fills one struct type: its wire fields, read once
// from the struct tags when the type is registered. The `json` tag names the
// field (and, with omitempty, how encoding/json writes it); the `a2e` tag adds
// what the decoder checks:
//
//	required   the field must be present and not null
//	id         a string that, when set, is a message id (32 hex characters)
//	toolname   a string that, when set, is a valid tool name (ValidToolName)
//	nonneg     a number that is not negative
//	object     a raw JSON value that, when set, is an object
//
// Field types: string (and named string types), bool, int, float64, []string,
// json.RawMessage, a struct, a slice of structs, and embedded structs, whose
// fields count as the outer struct's (as in encoding/json). A struct whose
// pointer has a Validate() error method is checked with it after its fields.
type plan struct {
	typ      reflect.Type
	fields   []planField
	names    []string // for "did you mean"
	validate bool
}

type fieldKind uint8

const (
	kString fieldKind = iota
	kBool
	kInt
	kFloat
	kStrings
	kRaw
	kStruct
	kStructs
)

type planField struct {
	name                                string
	index                               []int
	kind                                fieldKind
	required, id, toolname, nonneg, obj bool
	sub                                 *plan // kStruct, kStructs
}

// validator is a type with checks beyond its fields' own. Its errors name paths
// relative to the value (an *Error; any other error becomes a
// schema_violation with its text).
type validator interface{ Validate() error }

var (
	headerType    = reflect.TypeFor[Header]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	validatorType = reflect.TypeFor[validator]()
)

// maxPlanFields bounds a struct's wire fields: the decoder keeps a bit per field.
const maxPlanFields = 64

// buildPlan reads the plan of struct type t. plans memoizes (and lets a type
// refer to itself).
func buildPlan(t reflect.Type, plans map[reflect.Type]*plan) (*plan, error) {
	if p, ok := plans[t]; ok {
		return p, nil
	}
	p := &plan{typ: t, validate: reflect.PointerTo(t).Implements(validatorType)}
	plans[t] = p
	if err := p.add(t, nil, plans); err != nil {
		return nil, err
	}
	if len(p.fields) > maxPlanFields {
		return nil, fmt.Errorf("%s has %d wire fields, over %d", t, len(p.fields), maxPlanFields)
	}
	return p, nil
}

func (p *plan) add(t reflect.Type, index []int, plans map[reflect.Type]*plan) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			if sf.Type == headerType {
				continue // the base fields are read apart
			}
			if err := p.add(sf.Type, idx, plans); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			return fmt.Errorf("%s.%s has no json name", t, sf.Name)
		}
		for _, f := range p.fields {
			if f.name == name {
				return fmt.Errorf("%s: two fields named %q", t, name)
			}
		}
		f := planField{name: name, index: idx}
		for opt := range strings.SplitSeq(sf.Tag.Get("a2e"), ",") {
			switch opt {
			case "":
			case "required":
				f.required = true
			case "id":
				f.id = true
			case "toolname":
				f.toolname = true
			case "nonneg":
				f.nonneg = true
			case "object":
				f.obj = true
			default:
				return fmt.Errorf("%s.%s: unknown a2e tag option %q", t, sf.Name, opt)
			}
		}
		ft := sf.Type
		switch {
		case ft == rawType:
			f.kind = kRaw
		case ft.Kind() == reflect.String:
			f.kind = kString
		case ft.Kind() == reflect.Bool:
			f.kind = kBool
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Int64:
			f.kind = kInt
		case ft.Kind() == reflect.Float64:
			f.kind = kFloat
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			f.kind = kStrings
		case ft.Kind() == reflect.Struct:
			f.kind = kStruct
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			f.kind = kStructs
		default:
			return fmt.Errorf("%s.%s: a field of type %s cannot be decoded", t, sf.Name, ft)
		}
		if f.kind == kStruct || f.kind == kStructs {
			st := ft
			if f.kind == kStructs {
				st = ft.Elem()
			}
			sub, err := buildPlan(st, plans)
			if err != nil {
				return err
			}
			f.sub = sub
		}
		p.fields = append(p.fields, f)
		p.names = append(p.names, name)
	}
	return nil
}

// lookup returns the index of the field named key (raw bytes of an unescaped
// key), or -1.
func (p *plan) lookup(key []byte) int {
	for i := range p.fields {
		if p.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}
