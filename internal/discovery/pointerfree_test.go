package discovery

import (
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery/wordnet"
	"github.com/sluicehq/sluice/internal/discovery/wordtab"
	"github.com/sluicehq/sluice/internal/discovery/wordvec"
)

// The static data of discovery (the thesaurus, the word vectors and their
// stems) stays without pointers the garbage collector would follow one by
// one: a collection cycle marks each map slot and string, and with the data
// in maps and strings its mark phase took 11-21 ms (issue 27). Allowed are
// slices of pointer-free elements (one object each) and the fields named
// here.
var pointersAllowed = map[string]bool{
	"wordtab.Table.text":        true, // every word end to end, one object
	"discovery.wordVectors.tab": true, // the shared table, walked in turn
}

func TestStaticDataPointerFree(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[wordnet.Thesaurus](),
		reflect.TypeFor[wordvec.Table](),
		reflect.TypeFor[wordVectors](),
	} {
		for _, bad := range pointerFields(typ, typ.String(), pointersAllowed) {
			t.Errorf("%s: %s", typ, bad)
		}
	}
}

// The check finds what it must.
func TestPointerFieldsFinds(t *testing.T) {
	type inner struct {
		ok   [4]uint32
		tail []string
	}
	type data struct {
		n     int
		flat  []int32
		text  string
		m     map[string]int32
		p     *int
		in    []inner
		table wordtab.Table
	}
	got := pointerFields(reflect.TypeFor[data](), "data", nil)
	want := []string{"data.text is a string", "data.m is a map", "data.p is a pointer", "data.in.[].tail.[] is a string", "data.table.text is a string"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("found %q, want %q", got, want)
	}
}

// pointerFields returns the parts of typ (its name given as path) holding
// pointers other than a slice's to pointer-free elements, unless allowed
// names them by their type's name and field ("wordtab.Table.text").
func pointerFields(typ reflect.Type, path string, allowed map[string]bool) []string {
	switch typ.Kind() {
	case reflect.String:
		return []string{path + " is a string"}
	case reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return []string{path + " is a " + typ.Kind().String()}
	case reflect.Pointer:
		return []string{path + " is a pointer"}
	case reflect.Slice, reflect.Array:
		return pointerFields(typ.Elem(), path+".[]", allowed)
	case reflect.Struct:
		var out []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			name := typ.String() + "." + f.Name
			if !allowed[name] {
				out = append(out, pointerFields(f.Type, path+"."+f.Name, allowed)...)
				continue
			}
			if f.Type.Kind() == reflect.Pointer {
				out = append(out, pointerFields(f.Type.Elem(), name, allowed)...)
			}
		}
		return out
	}
	return nil
}
