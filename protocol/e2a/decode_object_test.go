package e2a_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func TestDecodeObjectRefusesDuplicateKeys(t *testing.T) {
	cases := []struct{ in, path string }{
		{`{"a":1,"a":2}`, "a"},
		{`{"input":{"x":1,"y":{"z":1,"z":2}}}`, "input.y.z"},
		{`{"list":[{"k":1},{"k":1,"k":2}]}`, "list[1].k"},
	}
	for _, c := range cases {
		_, err := e2a.DecodeObject([]byte(c.in), e2a.Limits{})
		var e *e2a.Error
		if !errors.As(err, &e) || e.Message != "duplicate key" || e.Path != c.path {
			t.Errorf("%s: got %v, want a duplicate key at %s", c.in, err, c.path)
		}
	}
}

func TestDecodeObjectIsEncodingJSONsValues(t *testing.T) {
	in := `{"s":"a\u00e9","n":1.5,"i":-3,"b":true,"z":null,"l":[1,{"k":"v"}],"o":{}}`
	got, err := e2a.DecodeObject([]byte(in), e2a.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	_ = json.Unmarshal([]byte(in), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, bad := range []string{`[1]`, `{"a":1} x`, `{"a":`, `"s"`, ``} {
		if _, err := e2a.DecodeObject([]byte(bad), e2a.Limits{}); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// FuzzDecodeObject: arbitrary bytes never panic; a failure is a clear
// *e2a.Error; a success is what encoding/json makes of the same bytes (the
// decoder is only stricter).
func FuzzDecodeObject(f *testing.F) {
	seedInputs(f)
	f.Add([]byte(`{"a":{"b":1,"b":2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lim := range []e2a.Limits{{}, {MaxBytes: 256, MaxDepth: 3}} {
			m, err := e2a.DecodeObject(data, lim)
			if err != nil {
				checkDecodeError(t, data, err)
				continue
			}
			var want map[string]any
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("decoded what encoding/json refuses (%v): %q", err, data)
			}
			if !reflect.DeepEqual(m, want) {
				t.Fatalf("got %v, encoding/json %v for %q", m, want, data)
			}
		}
	})
}
