package a2e_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// The spec's complete example (also Example 2).
const specExample = `{"type":"operationUpdate","operationId":"fetch-users","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"filter-active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active-users"}}}
{"type":"beginExecution","executionId":"exec-123","operationOrder":["fetch-users","filter-active"]}
`

func TestParseSpecExample(t *testing.T) {
	wf, errs := a2e.Parse([]byte(specExample), a2e.Limits{})
	if len(errs) != 0 {
		t.Fatalf("problems: %v", errs)
	}
	if !slices.Equal(wf.Defined, []string{"fetch-users", "filter-active"}) {
		t.Errorf("Defined = %v", wf.Defined)
	}
	if d := wf.Operations["filter-active"]; d == nil || d.Line != 2 || d.Operation.Name != "FilterData" || d.ID != "filter-active" {
		t.Errorf("filter-active = %+v", d)
	}
	if wf.BeginLine != 3 || wf.Begin.ExecutionID != "exec-123" || !slices.Equal(wf.Begin.OperationOrder, []string{"fetch-users", "filter-active"}) {
		t.Errorf("begin = %+v at %d", wf.Begin, wf.BeginLine)
	}
	if wf.Legacy {
		t.Error("canonical document marked legacy")
	}
}

func TestParseReplacesUpdates(t *testing.T) {
	doc := updA + "\n" + updB + "\n" +
		`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":9}}}` + "\n" + begin
	wf, errs := a2e.Parse([]byte(doc), a2e.Limits{})
	if len(errs) != 0 {
		t.Fatalf("problems: %v", errs)
	}
	if !slices.Equal(wf.Defined, []string{"a", "b"}) {
		t.Errorf("Defined = %v, want first-definition order", wf.Defined)
	}
	a := wf.Operations["a"]
	if a.Line != 3 || string(a.Operation.Config) != `{"duration":9}` {
		t.Errorf("a = line %d %s, want the last definition", a.Line, a.Operation.Config)
	}
	if len(wf.Operations) != 2 {
		t.Errorf("Operations has %d entries", len(wf.Operations))
	}
}

type problem struct {
	line int
	path string
	msg  string
}

func checkProblems(t *testing.T, errs []*a2e.Error, want []problem) {
	t.Helper()
	if len(errs) != len(want) {
		t.Fatalf("got %d problems %v, want %d", len(errs), errs, len(want))
	}
	for i, w := range want {
		e := errs[i]
		if e.Line != w.line || e.Path != w.path || !strings.Contains(e.Message, w.msg) {
			t.Errorf("problem %d = {%d %q %q}, want {%d %q ~%q}", i, e.Line, e.Path, e.Message, w.line, w.path, w.msg)
		}
	}
}

func TestParseDocumentRules(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want []problem
	}{
		{"no beginExecution", updA + "\n" + updB + "\n", []problem{{2, "", "the document has no beginExecution"}}},
		{"empty document", "\n\n", []problem{{1, "", "the document is empty"}}},
		{"nothing at all", "", []problem{{1, "", "the document is empty"}}},
		{"message after beginExecution", updA + "\n" + begin + "\n" + updB, []problem{{3, "type", "a message after beginExecution (line 2)"}}},
		{"second beginExecution", updA + "\n" + begin + "\n\n" + begin, []problem{{4, "type", "a second beginExecution; the first is at line 2"}}},
		{"only beginExecution", begin, nil},
		{"a bad line does not hide the rest", updA + "\n{bad\n" + `{"type":"operationUpdate","operationId":"x y","operation":{"Wait":{}}}` + "\n" + begin,
			[]problem{{2, "", "invalid JSON"}, {3, "operationId", "must match"}}},
		{"bad line after begin", updA + "\n" + begin + "\n" + `{"type":"operationUpdate","operationId":"x y","operation":{"Wait":{}}}`,
			[]problem{{3, "type", "a message after beginExecution"}, {3, "operationId", "must match"}}},
		// A line whose type cannot be told may have been the beginExecution: no
		// guess that it is missing.
		{"undecidable line suppresses the missing-begin problem", updA + "\n{\"type\":\"beginExecutoin\"}", []problem{{2, "type", "unknown message type"}}},
		{"malformed begin counts as present", updA + "\n" + `{"type":"beginExecution","executionId":"e"}`, []problem{{2, "operationOrder", "missing required key"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wf, errs := a2e.Parse([]byte(c.doc), a2e.Limits{})
			if wf == nil {
				t.Fatal("Parse returned a nil workflow")
			}
			checkProblems(t, errs, c.want)
		})
	}
}

func TestParseKeepsWhatItCanRead(t *testing.T) {
	doc := updA + "\n{bad\n" + updB + "\n" + begin
	wf, errs := a2e.Parse([]byte(doc), a2e.Limits{})
	if len(errs) != 1 {
		t.Fatalf("problems %v", errs)
	}
	if !slices.Equal(wf.Defined, []string{"a", "b"}) || wf.BeginLine != 4 {
		t.Errorf("workflow = %v begin line %d", wf.Defined, wf.BeginLine)
	}
}

func TestParseBoundsProblems(t *testing.T) {
	doc := strings.Repeat("{bad\n", 300) + begin
	_, errs := a2e.Parse([]byte(doc), a2e.Limits{})
	if len(errs) != 101 {
		t.Fatalf("got %d problems, want 100 and a note", len(errs))
	}
	if !strings.Contains(errs[100].Message, "too many problems") {
		t.Errorf("last = %v", errs[100])
	}
	for _, e := range errs {
		if e.Line < 1 {
			t.Errorf("problem without a line: %v", e)
		}
	}
}

func TestParseLimits(t *testing.T) {
	doc := []byte(specExample)
	_, errs := a2e.Parse(doc, a2e.Limits{MaxDocumentBytes: 200})
	checkProblems(t, errs, []problem{{2, "", "larger than the limit of 200 bytes"}})

	_, errs = a2e.Parse(doc, a2e.Limits{MaxLineBytes: 150})
	checkProblems(t, errs, []problem{{1, "", "the limit is 150 bytes"}, {2, "", "the limit is 150 bytes"}})

	_, errs = a2e.Parse(doc, a2e.Limits{MaxMessages: 2})
	checkProblems(t, errs, []problem{{3, "", "more than 2 messages"}})
}

func TestParseMessages(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(specExample), "\n")
	msgs := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		msgs[i] = json.RawMessage(l)
	}
	wf, errs := a2e.ParseMessages(msgs, a2e.Limits{})
	if len(errs) != 0 || wf.BeginLine != 3 || len(wf.Defined) != 2 {
		t.Fatalf("wf %+v errs %v", wf, errs)
	}

	bad := []json.RawMessage{json.RawMessage(updA), json.RawMessage(`{"type":"nope"}`), json.RawMessage(begin), json.RawMessage(updB)}
	_, errs = a2e.ParseMessages(bad, a2e.Limits{})
	checkProblems(t, errs, []problem{{2, "type", "unknown message type"}, {4, "type", "a message after beginExecution (line 3)"}})

	_, errs = a2e.ParseMessages(nil, a2e.Limits{})
	checkProblems(t, errs, []problem{{1, "", "the document is empty"}})

	_, errs = a2e.ParseMessages(msgs, a2e.Limits{MaxLineBytes: 120})
	checkProblems(t, errs, []problem{{1, "", "the message is 164 bytes long"}, {2, "", "the limit is 120 bytes"}})

	_, errs = a2e.ParseMessages(msgs, a2e.Limits{MaxDocumentBytes: 300})
	checkProblems(t, errs, []problem{{2, "", "larger than the limit of 300 bytes"}})
}

func TestParseAny(t *testing.T) {
	asString, _ := json.Marshal(specExample)
	lines := strings.Split(strings.TrimSpace(specExample), "\n")
	asArray := "[\n  " + strings.Join(lines, ",\n  ") + "\n]"
	for _, field := range []string{string(asString), asArray} {
		wf, errs := a2e.ParseAny(json.RawMessage(field), a2e.Limits{})
		if len(errs) != 0 || len(wf.Defined) != 2 || wf.Begin.ExecutionID != "exec-123" {
			t.Errorf("ParseAny(%.30s...) = %+v, %v", field, wf, errs)
		}
	}
	cases := []struct {
		field string
		lim   a2e.Limits
		msg   string
	}{
		{``, a2e.Limits{}, "workflow is required"},
		{`null`, a2e.Limits{}, "workflow is required"},
		{`42`, a2e.Limits{}, "got number"},
		{`{"type":"beginExecution"}`, a2e.Limits{}, "got object"},
		{`"unterminated`, a2e.Limits{}, "not a valid JSON string"},
		{`[{"a":1},`, a2e.Limits{}, "not valid JSON"},
		{`"` + strings.Repeat("a", 700) + `"`, a2e.Limits{MaxDocumentBytes: 100}, "larger than the limit of 100 bytes"},
		{`[` + strings.Repeat(`{},`, 100) + `{}]`, a2e.Limits{MaxDocumentBytes: 100}, "larger than the limit of 100 bytes"},
	}
	for _, c := range cases {
		wf, errs := a2e.ParseAny(json.RawMessage(c.field), c.lim)
		if wf == nil || len(errs) != 1 || errs[0].Path != "workflow" || errs[0].Line != 0 || !strings.Contains(errs[0].Message, c.msg) {
			t.Errorf("ParseAny(%.40q) = %v, want one problem at workflow containing %q", c.field, errs, c.msg)
		}
	}
	// A string that holds a bad document gives line-level problems.
	_, errs := a2e.ParseAny(json.RawMessage(`"{\"type\":\"x\"}\n"`), a2e.Limits{})
	checkProblems(t, errs, []problem{{1, "type", `unknown message type "x"`}})
}

func TestErrorFormatting(t *testing.T) {
	e := &a2e.Error{Line: 3, Path: "type", Message: "unknown"}
	if e.Error() != "line 3: unknown" {
		t.Errorf("Error() = %q", e.Error())
	}
	e.Line = 0
	if e.Error() != "unknown" {
		t.Errorf("Error() without line = %q", e.Error())
	}
	b, _ := json.Marshal(&a2e.Error{Line: 2, Path: "operationId", Message: "m", Cause: fmt.Errorf("secret")})
	if string(b) != `{"line":2,"path":"operationId","message":"m"}` {
		t.Errorf("JSON = %s", b)
	}
	l := a2e.ErrorList{{Message: "a"}, {Line: 1, Message: "b"}}
	if l.Error() != "a; line 1: b" || len(l.Unwrap()) != 2 {
		t.Errorf("ErrorList = %q", l.Error())
	}
}
