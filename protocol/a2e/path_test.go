package a2e_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

func key(k string) a2e.Segment { return a2e.Segment{Key: k} }
func idx(i int) a2e.Segment    { return a2e.Segment{Index: i, IsIndex: true} }

func TestParsePathValid(t *testing.T) {
	cases := []struct {
		in        string
		root      string
		segs      []a2e.Segment
		canonical string
	}{
		// The grammar of RESOLUTIONS and the spec's examples.
		{"/workflow/users", "workflow", []a2e.Segment{key("users")}, "/workflow/users"},
		{"/workflow/users[0]", "workflow", []a2e.Segment{key("users"), idx(0)}, "/workflow/users[0]"},
		{"/workflow/users[0].name", "workflow", []a2e.Segment{key("users"), idx(0), key("name")}, "/workflow/users[0].name"},
		{"/workflow/active-users", "workflow", []a2e.Segment{key("active-users")}, "/workflow/active-users"},
		{"/workflow/a/b", "workflow", []a2e.Segment{key("a"), key("b")}, "/workflow/a.b"},
		{"/workflow/object.field", "workflow", []a2e.Segment{key("object"), key("field")}, "/workflow/object.field"},
		{"/workflow/array[0].field", "workflow", []a2e.Segment{key("array"), idx(0), key("field")}, "/workflow/array[0].field"},
		{"/workflow/a[1][22]", "workflow", []a2e.Segment{key("a"), idx(1), idx(22)}, "/workflow/a[1][22]"},
		{"/workflow/a_b-C9/x_y.z-1[10]", "workflow", []a2e.Segment{key("a_b-C9"), key("x_y"), key("z-1"), idx(10)}, "/workflow/a_b-C9.x_y.z-1[10]"},
		{"/workflow/0", "workflow", []a2e.Segment{key("0")}, "/workflow/0"},
		{"/workflow/item", "workflow", []a2e.Segment{key("item")}, "/workflow/item"},
		// The input object.
		{"/input", "input", nil, "/input"},
		{"/input/team", "input", []a2e.Segment{key("team")}, "/input/team"},
		{"/input.team", "input", []a2e.Segment{key("team")}, "/input/team"},
		{"/input[2]", "input", []a2e.Segment{idx(2)}, "/input[2]"},
		{"/input/a/b[0].c", "input", []a2e.Segment{key("a"), key("b"), idx(0), key("c")}, "/input/a.b[0].c"},
	}
	for _, c := range cases {
		p, err := a2e.ParsePath(c.in)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", c.in, err)
			continue
		}
		if p.Root != c.root || !reflect.DeepEqual(p.Segments, c.segs) {
			t.Errorf("ParsePath(%q) = %+v", c.in, p)
		}
		if p.String() != c.canonical {
			t.Errorf("ParsePath(%q).String() = %q, want %q", c.in, p.String(), c.canonical)
		}
		again, err := a2e.ParsePath(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Errorf("canonical %q does not parse back: %+v %v", p.String(), again, err)
		}
	}
}

func TestParsePathInvalid(t *testing.T) {
	cases := []struct {
		in     string
		offset int
		reason string
	}{
		{"", 0, "must start with /workflow/ or /input"},
		{"workflow/x", 0, "must start with"},
		{"/Workflow/x", 0, "must start with"},
		{"/inputs", 0, "must start with"},
		{"/data/x", 0, "must start with"},
		{"/workflow", 9, "expected /workflow/<key>"},
		{"/workflow/", 10, "expected a key"},
		{"/workflow/.x", 10, "expected a key"},
		{"/workflow/[0]", 10, "expected a key"},
		{"/workflow/a b", 11, `unexpected ' '`},
		{"/workflow/a.", 12, "expected a key after '.'"},
		{"/workflow/a/", 12, "expected a key after '/'"},
		{"/workflow/a..b", 12, "expected a key after '.'"},
		{"/workflow/a[", 11, "unclosed '['"},
		{"/workflow/a[0", 11, "unclosed '['"},
		{"/workflow/a[]", 12, `array index "" is not a non-negative integer`},
		{"/workflow/a[-1]", 12, `array index "-1"`},
		{"/workflow/a[-0]", 12, `array index "-0"`},
		{"/workflow/a[+1]", 12, `array index "+1"`},
		{"/workflow/a[01]", 12, `array index "01"`},
		{"/workflow/a[1.5]", 12, `array index "1.5"`},
		{"/workflow/a[ 1]", 12, `array index " 1"`},
		{"/workflow/a[x]", 12, `array index "x"`},
		{"/workflow/a[99999999999999999999]", 12, "array index"},
		{"/workflow/a[0]x", 14, `unexpected 'x'`},
		{"/workflow/é", 10, "expected a key"},
		{"/workflow/a{b}", 11, `unexpected '{'`},
		{"/input/", 7, "expected a key after '/'"},
		{"/input[x]", 7, `array index "x"`},
		{"/workflow/" + strings.Repeat("a", 1100), 1024, "too long"},
	}
	for _, c := range cases {
		_, err := a2e.ParsePath(c.in)
		var pe *a2e.PathError
		if !errors.As(err, &pe) {
			t.Errorf("ParsePath(%q) = %v, want a *PathError", c.in, err)
			continue
		}
		if pe.Offset != c.offset || !strings.Contains(pe.Reason, c.reason) || pe.Path != c.in {
			t.Errorf("ParsePath(%q) = offset %d %q, want offset %d ~%q", c.in, pe.Offset, pe.Reason, c.offset, c.reason)
		}
		if !strings.Contains(pe.Error(), "invalid path") {
			t.Errorf("Error() = %q", pe.Error())
		}
	}
}

func TestParseField(t *testing.T) {
	valid := []struct {
		in        string
		segs      []a2e.Segment
		canonical string
	}{
		{"", nil, ""},
		{"status", []a2e.Segment{key("status")}, "status"},
		{"profile.age", []a2e.Segment{key("profile"), key("age")}, "profile.age"},
		{"tags[0]", []a2e.Segment{key("tags"), idx(0)}, "tags[0]"},
		{"a/b", []a2e.Segment{key("a"), key("b")}, "a.b"},
		{"[0].name", []a2e.Segment{idx(0), key("name")}, "[0].name"},
		{"[3]", []a2e.Segment{idx(3)}, "[3]"},
	}
	for _, c := range valid {
		p, err := a2e.ParseField(c.in)
		if err != nil || p.Root != "" || !reflect.DeepEqual(p.Segments, c.segs) || p.String() != c.canonical {
			t.Errorf("ParseField(%q) = %+v %q, %v", c.in, p, p.String(), err)
		}
	}
	invalid := []struct {
		in     string
		offset int
	}{
		{".a", 0}, {"/a", 0}, {"a.", 2}, {"a[", 1}, {"a[x]", 2}, {"a b", 1}, {"/workflow/a", 0}, {strings.Repeat("a", 1025), 1024},
	}
	for _, c := range invalid {
		_, err := a2e.ParseField(c.in)
		var pe *a2e.PathError
		if !errors.As(err, &pe) || pe.Offset != c.offset {
			t.Errorf("ParseField(%q) = %v, want offset %d", c.in, err, c.offset)
		}
	}
}

func TestPathHasPrefix(t *testing.T) {
	mk := func(s string) a2e.Path {
		p, err := a2e.ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		p, q string
		want bool
	}{
		{"/workflow/a.b[0]", "/workflow/a", true},
		{"/workflow/a.b[0]", "/workflow/a/b", true},
		{"/workflow/a", "/workflow/a", true},
		{"/workflow/a", "/workflow/a.b", false},
		{"/workflow/ab", "/workflow/a", false},
		{"/workflow/a[0]", "/workflow/a[1]", false},
		{"/input/a", "/workflow/a", false},
		{"/input/a", "/input", true},
	}
	for _, c := range cases {
		if got := mk(c.p).HasPrefix(mk(c.q)); got != c.want {
			t.Errorf("%s HasPrefix %s = %v", c.p, c.q, got)
		}
	}
}
