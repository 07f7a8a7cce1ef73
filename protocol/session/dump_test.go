package session_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
)

// kv and ordered write a JSON object with its keys in the order given, so
// that a golden file lists a struct's fields in their Go order.
type kv struct {
	k string
	v any
}

type ordered []kv

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(p.k); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := enc.Encode(p.v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// dump shows a decoded message as the Go values the decoder filled: every
// field by its Go name, embedded structs as nested objects, a nil slice as
// null apart from an empty one, and a json.RawMessage as the exact text it
// holds (a string), so that a golden shows what was kept byte for byte.
func dump(v any) any { return dumpValue(reflect.ValueOf(v)) }

func dumpValue(v reflect.Value) any {
	switch {
	case !v.IsValid():
		return nil
	case v.Type() == rawMessageType:
		if v.IsNil() {
			return nil
		}
		return string(v.Bytes())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return dumpValue(v.Elem())
	case reflect.Struct:
		o := ordered{}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				o = append(o, kv{f.Name, dumpValue(v.Field(i))})
			}
		}
		return o
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = dumpValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		o := ordered{}
		for _, k := range keys {
			o = append(o, kv{k, dumpValue(v.MapIndex(reflect.ValueOf(k)))})
		}
		return o
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int64:
		return v.Int()
	case reflect.Float64:
		return v.Float()
	}
	return v.Interface()
}
