package datamodel_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func mustPath(t *testing.T, s string) a2e.Path {
	t.Helper()
	p, err := a2e.ParsePath(s)
	if err != nil {
		t.Fatalf("ParsePath(%q): %v", s, err)
	}
	return p
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestGetAndSet(t *testing.T) {
	m := datamodel.New(decode(t, `{"user":{"id":7},"tags":["a","b"]}`))
	users := decode(t, `[{"name":"ann","profile":{"age":31}},{"name":"bob"}]`)
	if err := m.Set(mustPath(t, "/workflow/users"), users); err != nil {
		t.Fatal(err)
	}
	if err := m.Set(mustPath(t, "/workflow/a/b.c"), 1.0); err != nil {
		t.Fatal(err)
	}
	cases := map[string]any{
		"/workflow/users[0].name":        "ann",
		"/workflow/users[0].profile.age": 31.0,
		"/workflow/users[1]/name":        "bob",
		"/workflow/a":                    map[string]any{"b": map[string]any{"c": 1.0}},
		"/input/user.id":                 7.0,
		"/input.tags[1]":                 "b",
		"/input":                         decode(t, `{"user":{"id":7},"tags":["a","b"]}`),
	}
	for path, want := range cases {
		got, err := m.GetString(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", path, got, want)
		}
	}
}

func TestMissingPathIsDataError(t *testing.T) {
	m := datamodel.New(nil)
	_ = m.Set(mustPath(t, "/workflow/users"), decode(t, `[{"name":"ann"}]`))
	cases := map[string]string{
		"/workflow/nope":          "path /workflow/nope does not exist",
		"/workflow/users[3]":      "has no index 3",
		"/workflow/users[0].mail": `has no key "mail"`,
		"/workflow/users.name":    `has no key "name"`,
		"/input/x":                "does not exist",
	}
	for path, frag := range cases {
		_, err := m.GetString(path)
		fe, ok := fault.As(err)
		if !ok || fe.SpecType() != fault.DataError {
			t.Errorf("%s: want DataError, got %v", path, err)
			continue
		}
		if !strings.Contains(fe.Message, frag) || fe.Details["path"] != path {
			t.Errorf("%s: message %q (details %v) should contain %q", path, fe.Message, fe.Details, frag)
		}
	}
	if _, err := m.GetString("/nowhere"); err == nil {
		t.Error("a malformed path must be an error")
	}
}

func TestSetNeverMutatesSharedValues(t *testing.T) {
	m := datamodel.New(nil)
	orig := decode(t, `{"a":{"b":1},"list":[{"x":1}]}`)
	_ = m.Set(mustPath(t, "/workflow/doc"), orig)
	read, _ := m.GetString("/workflow/doc")
	if err := m.Set(mustPath(t, "/workflow/doc.a.b"), 2.0); err != nil {
		t.Fatal(err)
	}
	if err := m.Set(mustPath(t, "/workflow/doc.list[0].x"), 9.0); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, decode(t, `{"a":{"b":1},"list":[{"x":1}]}`)) {
		t.Fatalf("a value read earlier changed: %v", read)
	}
	got, _ := m.GetString("/workflow/doc")
	if !reflect.DeepEqual(got, decode(t, `{"a":{"b":2},"list":[{"x":9}]}`)) {
		t.Fatalf("write lost: %v", got)
	}
}

func TestSetErrors(t *testing.T) {
	m := datamodel.New(map[string]any{})
	_ = m.Set(mustPath(t, "/workflow/s"), "text")
	_ = m.Set(mustPath(t, "/workflow/arr"), []any{1.0})
	for _, path := range []string{"/input/x", "/workflow/s.x", "/workflow/arr[5]", "/workflow/s[0]"} {
		if err := m.Set(mustPath(t, path), 1.0); err == nil {
			t.Errorf("Set %s: want error", path)
		} else if fe, _ := fault.As(err); fe == nil || fe.SpecType() != fault.DataError {
			t.Errorf("Set %s: want DataError, got %v", path, err)
		}
	}
}

func TestOverlayIsolation(t *testing.T) {
	m := datamodel.New(nil)
	_ = m.Set(mustPath(t, "/workflow/shared"), map[string]any{"n": 1.0})
	o := m.Overlay()
	_ = o.Set(mustPath(t, "/workflow/tmp"), "mine")
	_ = o.Set(mustPath(t, "/workflow/shared.n"), 2.0)
	if m.Has(mustPath(t, "/workflow/tmp")) {
		t.Fatal("overlay write leaked into the parent")
	}
	if v, _ := m.GetString("/workflow/shared.n"); v != 1.0 {
		t.Fatalf("parent changed through overlay: %v", v)
	}
	if v, _ := o.GetString("/workflow/shared.n"); v != 2.0 {
		t.Fatalf("overlay lost its write: %v", v)
	}
	wf, _ := m.Snapshot()
	back := datamodel.FromSnapshot(wf, nil)
	if v, _ := back.GetString("/workflow/shared.n"); v != 1.0 {
		t.Fatal("snapshot round trip lost data")
	}
}
