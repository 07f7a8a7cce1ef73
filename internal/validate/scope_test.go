package validate

import (
	"slices"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// keysOf's prefixes must be exactly the canonical texts of the path's prefixes.
func TestKeysOf(t *testing.T) {
	for _, s := range []string{
		"/workflow/a", "/workflow/users[0].name", "/workflow/a/b/c", "/workflow/x[10][2].y-z",
		"/input", "/input/x", "/input[3].a", "/input.a/b",
	} {
		p, err := a2e.ParsePath(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var want []string
		for i := 1; i <= len(p.Segments); i++ {
			want = append(want, a2e.Path{Root: p.Root, Segments: p.Segments[:i]}.String())
		}
		got := keysOf(p)
		if got.full != p.String() || !slices.Equal(got.prefixes, want) {
			t.Errorf("keysOf(%s) = %q %q, want %q %q", s, got.full, got.prefixes, p.String(), want)
		}
	}
}

// The scope answers "covers" both ways and undoes branches exactly.
func TestScope(t *testing.T) {
	k := func(s string) pathKeys {
		p, err := a2e.ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		return keysOf(p)
	}
	wr := func(s string, ty typ) write { return write{keys: k(s), t: ty} }
	sc := newScope()
	sc.add(wr("/workflow/users", tArray))
	m := sc.mark()
	sc.add(wr("/workflow/a/b", tObject))
	sc.add(wr("/workflow/users", tObject))
	cases := []struct {
		path    string
		covered bool
	}{
		{"/workflow/users", true},
		{"/workflow/users[0].name", true},
		{"/workflow/a", true},
		{"/workflow/a.b.c", true},
		{"/workflow/a.c", false},
		{"/workflow/user", false},
	}
	for _, tc := range cases {
		if got := sc.covers(k(tc.path)); got != tc.covered {
			t.Errorf("covers(%s) = %v", tc.path, got)
		}
	}
	if w, _ := sc.exact(k("/workflow/users")); w.t != tObject {
		t.Errorf("exact users = %v, want the later write", w.t)
	}
	if got := len(sc.since(m)); got != 2 {
		t.Errorf("since = %d writes", got)
	}
	sc.rollback(m)
	if sc.covers(k("/workflow/a")) {
		t.Error("rollback kept /workflow/a/b")
	}
	if w, ok := sc.exact(k("/workflow/users")); !ok || w.t != tArray {
		t.Errorf("rollback: users = %v %v, want the first write", w.t, ok)
	}
	if len(sc.under) != 1 || len(sc.last) != 1 {
		t.Errorf("rollback left %d under, %d last", len(sc.under), len(sc.last))
	}
}
