package a2s_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

func parseErr(t *testing.T, src string, opt a2s.Options) *a2s.Error {
	t.Helper()
	_, err := a2s.ParseTree([]byte(src), opt)
	if err == nil {
		t.Fatalf("%q: want an error", src)
	}
	var e *a2s.Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %v is not an *a2s.Error", src, err)
	}
	return e
}

func TestParseErrors(t *testing.T) {
	json, yml := a2s.Options{Format: a2s.FormatJSON}, a2s.Options{Format: a2s.FormatYAML}
	cases := []struct {
		name   string
		src    string
		opt    a2s.Options
		rule   string
		pos    a2s.Pos
		substr string
	}{
		{"json trailing comma", "{\n  \"a\": 1,\n}", json, a2s.RuleSyntax, a2s.Pos{Line: 3, Col: 1}, "JSON: unexpected character '}'; expected a string key"},
		{"json missing colon", `{"a" 1}`, json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 6}, "expected ':' after object key \"a\""},
		{"json duplicate key", "{\"a\": 1,\n \"a\": 2}", json, a2s.RuleSyntax, a2s.Pos{Line: 2, Col: 2}, `JSON: duplicate key "a"`},
		{"json leading zero", `{"a": 01}`, json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 7}, "leading zero"},
		{"json huge number", `{"a": 1e400}`, json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 7}, "out of the range of a double"},
		{"json raw newline in string", "{\"a\": \"x\ny\"}", json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 9}, "control character 0x0a"},
		{"json bad escape", `{"a": "\q"}`, json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 8}, `bad escape \q`},
		{"json trailing data", `{} {}`, json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 4}, "after the top-level value"},
		{"json empty", "  \n", json, a2s.RuleSyntax, a2s.Pos{Line: 2, Col: 1}, "empty"},
		{"json column counts characters", `{"é€": x}`, json, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 8}, "unexpected character 'x'"},
		{"yaml unclosed flow", "a: [1, 2\nb: 3\n", yml, a2s.RuleSyntax, a2s.Pos{}, "YAML:"},
		{"yaml duplicate key", "a: 1\na: 2\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 2, Col: 1}, "already defined"},
		{"yaml two documents", "a: 1\n---\nb: 2\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 2, Col: 1}, "one document"},
		{"yaml empty", "# nothing\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 1}, "empty"},
		{"yaml inf", "a: .inf\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 4}, "no JSON form"},
		{"yaml nan", "a: [.NaN]\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 5}, "no JSON form"},
		{"yaml custom tag", "a: !secret x\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 4}, "tag !secret"},
		{"yaml complex key", "? [1, 2]\n: x\n", yml, a2s.RuleSyntax, a2s.Pos{}, "key"},
		{"yaml unknown alias", "a: *nope\n", yml, a2s.RuleSyntax, a2s.Pos{}, ""},
		{"invalid utf-8", "a: \"\xff\"\n", yml, a2s.RuleSyntax, a2s.Pos{Line: 1, Col: 5}, "not valid UTF-8"},
		{"too large", strings.Repeat(" ", 100), a2s.Options{Limits: a2s.Limits{MaxBytes: 50}}, a2s.RuleLimit, a2s.Pos{Line: 1, Col: 1}, "more than the limit of 50"},
		{"json too deep", strings.Repeat("[", 70) + strings.Repeat("]", 70), json, a2s.RuleLimit, a2s.Pos{Line: 1, Col: 66}, "deeper than 64"},
		{"yaml too deep", "a: " + strings.Repeat("[", 70) + strings.Repeat("]", 70), yml, a2s.RuleLimit, a2s.Pos{}, "deeper than 64"},
		{"json too many values", "[" + strings.Repeat("1,", 100) + "1]", a2s.Options{Format: a2s.FormatJSON, Limits: a2s.Limits{MaxNodes: 50}}, a2s.RuleLimit, a2s.Pos{}, "more than 50 values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opt.File = "doc"
			e := parseErr(t, c.src, c.opt)
			if e.Rule != c.rule || !strings.Contains(e.Message, c.substr) || (c.pos.Known() && e.Pos != c.pos) {
				t.Errorf("got %s %v %q", e.Rule, e.Pos, e.Message)
			}
			if !strings.HasPrefix(e.Error(), "doc:") || e.File != "doc" {
				t.Errorf("error must name the file: %q", e.Error())
			}
			if d := e.Diagnostic(); d.Severity != a2s.SeverityError || d.Rule != c.rule {
				t.Errorf("diagnostic %+v", d)
			}
		})
	}
}

// TestBillionLaughs: aliases that expand exponentially are refused by the
// value budget instead of being expanded.
func TestBillionLaughs(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	e := parseErr(t, b.String(), a2s.Options{Format: a2s.FormatYAML})
	if e.Rule != a2s.RuleLimit || !strings.Contains(e.Message, "alias") {
		t.Fatalf("got %v", e)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestParsePositions(t *testing.T) {
	src := "a2s: 1.0.0\nid: X\ntasks:\n  - id: t1\n    type: request\n"
	tree, err := a2s.ParseTree([]byte(src), a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	task := tree.Get("tasks").Items[0]
	if task.Pos != (a2s.Pos{Line: 4, Col: 5}) || task.Get("type").Pos != (a2s.Pos{Line: 5, Col: 11}) || task.Member("type").Pos != (a2s.Pos{Line: 5, Col: 5}) {
		t.Errorf("positions: task %v, type value %v, type key %v", task.Pos, task.Get("type").Pos, task.Member("type").Pos)
	}
	jtree, err := a2s.ParseTree([]byte("{\n  \"tasks\": [\n    {\"id\": \"t1\"}\n  ]\n}"), a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	jt := jtree.Get("tasks").Items[0]
	if jt.Pos != (a2s.Pos{Line: 3, Col: 5}) || jt.Get("id").Pos != (a2s.Pos{Line: 3, Col: 12}) {
		t.Errorf("JSON positions: %v %v", jt.Pos, jt.Get("id").Pos)
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]a2s.Format{"a.json": a2s.FormatJSON, "a.YAML": a2s.FormatYAML, "a.yml": a2s.FormatYAML, "a": a2s.FormatAuto, "-": a2s.FormatAuto} {
		if got := a2s.FormatOf(name); got != want {
			t.Errorf("%s: %v", name, got)
		}
	}
	// Auto: '{' is JSON (so JSON errors speak JSON), anything else YAML.
	if e := parseErr(t, "{\"a\": }", a2s.Options{}); !strings.HasPrefix(e.Message, "JSON:") {
		t.Errorf("auto JSON: %v", e)
	}
	if e := parseErr(t, "a: [", a2s.Options{}); !strings.HasPrefix(e.Message, "YAML:") {
		t.Errorf("auto YAML: %v", e)
	}
}

// TestNormalizeNonObject: a document that is not an object is reported, not
// a panic.
func TestNormalizeNonObject(t *testing.T) {
	// "00\n---" once panicked goccy/go-yaml; the parser is guarded anyway.
	for _, src := range []string{"[1, 2]", "just text", "42", "null", "00\n---"} {
		d, diags := a2s.LintBytes([]byte(src), a2s.Options{Format: a2s.FormatYAML})
		if d == nil || len(diags) != 1 || diags[0].Rule != a2s.RuleType {
			t.Errorf("%q: %v", src, diags)
		}
	}
}
