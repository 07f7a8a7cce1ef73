package op

// White-box tests of the template forms; ApiCall's tests cover them end to end.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func tplModel(t *testing.T) *datamodel.Model {
	t.Helper()
	m := datamodel.New(map[string]any{"q": "x y"})
	for k, v := range map[string]any{
		"s": "a/b c", "n": 1.5, "i": 3.0, "big": 1e21, "t": true, "null": nil,
		"obj": map[string]any{"b": 1.0, "a": "<&>"}, "arr": []any{1.0, "x"},
	} {
		p, _ := a2e.ParsePath("/workflow/" + k)
		if err := m.Set(p, v); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestTplText(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{"as is", "as is"}, {1.5, "1.5"}, {3.0, "3"}, {1e21, "1e+21"}, {true, "true"}, {nil, "null"},
		{map[string]any{"b": 1.0, "a": "<&>"}, `{"a":"<&>","b":1}`}, {[]any{1.0, "x"}, `[1,"x"]`},
	}
	for _, c := range cases {
		if got, err := tplText(c.v); err != nil || got != c.want {
			t.Errorf("tplText(%v) = %q %v, want %q", c.v, got, err, c.want)
		}
	}
}

func TestTextTemplate(t *testing.T) {
	m := tplModel(t)
	cases := []struct{ src, want string }{
		{"plain", "plain"},
		{"{/workflow/s}", "a/b c"},
		{"n={/workflow/n}&i={/workflow/i}", "n=1.5&i=3"},
		{"{/workflow/obj} {/input/q}", `{"a":"<&>","b":1} x y`},
		{"json {\"a\": 1} stays", `json {"a": 1} stays`},
	}
	for _, c := range cases {
		tt, err := parseTextTemplate(c.src, "p")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := tt.render(m); err != nil || got != c.want {
			t.Errorf("%q -> %q %v, want %q", c.src, got, err, c.want)
		}
	}
	tt, _ := parseTextTemplate("{/workflow/missing}", "p")
	if _, err := tt.render(m); err == nil {
		t.Fatal("a missing path must fail")
	}
	if _, err := parseTextTemplate("{/workflow/a", "op.x"); err == nil {
		t.Fatal("an unclosed reference must fail")
	} else if fe, _ := fault.As(err); fe.Path != "op.x" {
		t.Fatalf("path %q", fe.Path)
	}
}

func TestURLTemplate(t *testing.T) {
	m := tplModel(t)
	cases := []struct{ src, want string }{
		{"https://api.example.com/x", "https://api.example.com/x"},
		{"https://api.example.com/{/workflow/s}", "https://api.example.com/a%2Fb%20c"},
		{"https://api.example.com/?q={/workflow/s}", "https://api.example.com/?q=a%2Fb+c"},
		{"https://api.example.com?q={/workflow/s}", "https://api.example.com?q=a%2Fb+c"},
		{"http://h:8080/p/{/workflow/i}?a={/workflow/t}#f{/workflow/s}", "http://h:8080/p/3?a=true#fa%2Fb+c"},
		{"https://api.example.com/{/workflow/arr}", "https://api.example.com/%5B1%2C%22x%22%5D"},
	}
	for _, c := range cases {
		ut, err := parseURLTemplate(c.src, "u")
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		u, err := ut.render(m)
		if err != nil || u.String() != c.want {
			t.Errorf("%s -> %v %v, want %s", c.src, u, err, c.want)
		}
	}
	for _, bad := range []string{"", "api.example.com/x", "https://{/workflow/s}/", "https://a{/workflow/s}/",
		"https://a.com:{/workflow/i}/", "mailto:x@y", "https:///path", "https://u@a.com/", "http://a.com:99999/",
		"https://a.com/" + strings.Repeat("x", 9000)} {
		if _, err := parseURLTemplate(bad, "u"); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
	ut, _ := parseURLTemplate("https://api.example.com:443/x", "u")
	if ut.host != "api.example.com" || ut.port != "443" || ut.scheme != "https" {
		t.Fatalf("host parts %+v", ut)
	}
}

func TestBodyTemplate(t *testing.T) {
	m := tplModel(t)
	creds := map[string]string{"c1": "Bearer tok"}
	cases := []struct{ src, want, key string }{
		{`"{/workflow/obj}"`, `{"a":"<&>","b":1}`, ``},
		{`"{/workflow/null}"`, `null`, ``},
		{`"n is {/workflow/n}"`, `"n is 1.5"`, ``},
		{`{"z":1,"a":[true,"{/workflow/i}"],"c":{"credentialRef":{"id":"c1"}}}`,
			`{"a":[true,3],"c":"Bearer tok","z":1}`, `{"a":[true,3],"c":{"credentialRef":"c1"},"z":1}`},
		{`{"credentialRef":{"id":"c1"}}`, `"Bearer tok"`, `{"credentialRef":"c1"}`},
		{`{"credentialRef":{"id":"c1"},"other":1}`, `{"credentialRef":{"id":"c1"},"other":1}`, ``}, // not a ref: two keys
		{`[1.50, 100000000000000000001]`, `[1.50,100000000000000000001]`, ``},
	}
	for _, c := range cases {
		n, err := parseBody(json.RawMessage(c.src), "b")
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		var b bytes.Buffer
		if err := n.write(&b, m, creds, false); err != nil || b.String() != c.want {
			t.Errorf("%s -> %s %v, want %s", c.src, b.String(), err, c.want)
		}
		b.Reset()
		n.write(&b, m, nil, true)
		if c.key != "" && b.String() != c.key {
			t.Errorf("%s key form -> %s, want %s", c.src, b.String(), c.key)
		}
		if strings.Contains(b.String(), "tok") {
			t.Errorf("key form holds the secret: %s", b.String())
		}
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := parseBody(json.RawMessage(deep), "b"); err == nil {
		t.Fatal("nesting not bounded")
	}
	if n, _ := parseBody(json.RawMessage(`{"a":[1,{"b":"c"}]}`), "b"); n.kind != bodyLiteral {
		t.Fatal("a body without references should collapse to one literal")
	}
}
