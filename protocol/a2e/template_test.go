package a2e_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// part describes an expected template part: literal text, or a reference in
// canonical form (prefixed with "@").
func describeParts(tpl a2e.Template) []string {
	var out []string
	for _, p := range tpl.Parts {
		if p.Ref != nil {
			out = append(out, "@"+p.Ref.String())
		} else {
			out = append(out, p.Text)
		}
	}
	return out
}

func TestParseTemplate(t *testing.T) {
	cases := []struct {
		in    string
		parts []string
		whole bool
	}{
		{"", []string{""}, false},
		{"plain text", []string{"plain text"}, false},
		{"{/workflow/id}", []string{"@/workflow/id"}, true},
		{"{/input}", []string{"@/input"}, true},
		{"https://api.test/users/{/workflow/user.id}?q={/input/q}", []string{"https://api.test/users/", "@/workflow/user.id", "?q=", "@/input/q"}, false},
		{"{/workflow/a}{/workflow/b}", []string{"@/workflow/a", "@/workflow/b"}, false},
		{"x{/workflow/a[0]}", []string{"x", "@/workflow/a[0]"}, false},
		// Literal braces and JSON text inside strings pass untouched.
		{`{"a": 1, "b": [1, 2]}`, []string{`{"a": 1, "b": [1, 2]}`}, false},
		{`{"path":"/workflow/x"}`, []string{`{"path":"/workflow/x"}`}, false},
		{"{ /workflow/a }", []string{"{ /workflow/a }"}, false},
		{"{}", []string{"{}"}, false},
		{"{/}", []string{"{/}"}, false},
		{"{/tmp/file}", []string{"{/tmp/file}"}, false},
		{"a } b {", []string{"a } b {"}, false},
		{"{{/workflow/a}}", []string{"{", "@/workflow/a", "}"}, false},
		{`{"id": "{/workflow/id}"}`, []string{`{"id": "`, "@/workflow/id", `"}`}, false},
		{"price: {/workflow/p} {USD}", []string{"price: ", "@/workflow/p", " {USD}"}, false},
	}
	for _, c := range cases {
		tpl, err := a2e.ParseTemplate(c.in)
		if err != nil {
			t.Errorf("ParseTemplate(%q): %v", c.in, err)
			continue
		}
		got := describeParts(tpl)
		if strings.Join(got, "|") != strings.Join(c.parts, "|") || len(got) != len(c.parts) {
			t.Errorf("ParseTemplate(%q) = %q, want %q", c.in, got, c.parts)
		}
		_, whole := tpl.Whole()
		if whole != c.whole {
			t.Errorf("ParseTemplate(%q).Whole() = %v", c.in, whole)
		}
		refs := 0
		for _, p := range c.parts {
			if strings.HasPrefix(p, "@") {
				refs++
			}
		}
		if len(tpl.Refs()) != refs || tpl.HasRefs() != (refs > 0) {
			t.Errorf("ParseTemplate(%q): %d refs, HasRefs %v", c.in, len(tpl.Refs()), tpl.HasRefs())
		}
		// Start offsets point at each part's text in the source.
		for _, p := range tpl.Parts {
			if p.Ref == nil && !strings.HasPrefix(c.in[p.Start:], p.Text) {
				t.Errorf("ParseTemplate(%q): part %q does not start at %d", c.in, p.Text, p.Start)
			}
			if p.Ref != nil && !strings.HasPrefix(c.in[p.Start:], "{/") {
				t.Errorf("ParseTemplate(%q): reference does not start at %d", c.in, p.Start)
			}
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	cases := []struct {
		in     string
		offset int
		reason string
	}{
		{"{/workflow/a", 0, "unclosed '{'"},
		{"x {/input/a", 2, "unclosed '{'"},
		{"{/workflow/}", 11, "expected a key"},
		{"id={/workflow/a b}", 15, "unexpected ' '"},
		{"{/workflow}", 10, "expected /workflow/<key>"},
		{"ok {/workflow/a} then {/workflow/b[x]}", 35, "array index"},
		{"{/inputs}", 1, "must start with"},
	}
	for _, c := range cases {
		_, err := a2e.ParseTemplate(c.in)
		var pe *a2e.PathError
		if !errors.As(err, &pe) {
			t.Errorf("ParseTemplate(%q) = %v, want a *PathError", c.in, err)
			continue
		}
		if pe.Offset != c.offset || pe.Path != c.in || !strings.Contains(pe.Reason, c.reason) {
			t.Errorf("ParseTemplate(%q) = offset %d path %q %q, want offset %d ~%q", c.in, pe.Offset, pe.Path, pe.Reason, c.offset, c.reason)
		}
	}
}
