package a2e_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

const (
	updA  = `{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":1}}}`
	updB  = `{"type":"operationUpdate","operationId":"b","operation":{"Wait":{"duration":2}}}`
	begin = `{"type":"beginExecution","executionId":"e1","operationOrder":["a","b"]}`
)

// decodeAll drains a decoder, returning messages and problems in order.
func decodeAll(t *testing.T, d *a2e.Decoder) ([]a2e.Message, []*a2e.Error) {
	t.Helper()
	var msgs []a2e.Message
	var errs []*a2e.Error
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("decoder does not end")
		}
		m, err := d.Next()
		if err == io.EOF {
			return msgs, errs
		}
		if err != nil {
			var e *a2e.Error
			if !errors.As(err, &e) {
				t.Fatalf("Next returned %T %v, want *a2e.Error", err, err)
			}
			if m.Line != e.Line {
				t.Errorf("message line %d differs from error line %d", m.Line, e.Line)
			}
			errs = append(errs, e)
			continue
		}
		msgs = append(msgs, m)
	}
}

func TestDecoderLines(t *testing.T) {
	cases := []struct {
		name  string
		doc   string
		lines []int
		types []string
	}{
		{"plain", updA + "\n" + updB + "\n" + begin, []int{1, 2, 3}, []string{"operationUpdate", "operationUpdate", "beginExecution"}},
		{"trailing newline", updA + "\n" + begin + "\n", []int{1, 2}, nil},
		{"blank lines keep numbering", "\n" + updA + "\n\n   \t\n" + begin + "\n\n", []int{2, 5}, nil},
		{"CRLF", updA + "\r\n" + begin + "\r\n", []int{1, 2}, nil},
		{"CR-only blank line", updA + "\r\n\r\n" + begin, []int{1, 3}, nil},
		{"byte order mark", "\xef\xbb\xbf" + updA + "\n" + begin, []int{1, 2}, nil},
		{"spaces around the object", "  " + updA + "  \n\t" + begin, []int{1, 2}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(c.doc), a2e.Limits{}))
			if len(errs) > 0 {
				t.Fatalf("unexpected problems: %v", errs)
			}
			if len(msgs) != len(c.lines) {
				t.Fatalf("got %d messages, want %d", len(msgs), len(c.lines))
			}
			for i, m := range msgs {
				if m.Line != c.lines[i] {
					t.Errorf("message %d: line %d, want %d", i, m.Line, c.lines[i])
				}
				if c.types != nil && m.Type() != c.types[i] {
					t.Errorf("message %d: type %s, want %s", i, m.Type(), c.types[i])
				}
			}
		})
	}
}

func TestDecoderMessageContent(t *testing.T) {
	doc := `{"type":"operationUpdate","operationId":"fetch-users","operation":{"ApiCall":{"method":"GET","url":"https://x.test/u?a=<b>&c","outputPath":"/workflow/users"}}}
{"type":"beginExecution","executionId":"exec-1","operationOrder":["fetch-users"],"onError":"continue"}`
	msgs, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(doc), a2e.Limits{}))
	if len(errs) != 0 || len(msgs) != 2 {
		t.Fatalf("msgs %d errs %v", len(msgs), errs)
	}
	u := msgs[0].OperationUpdate
	if u == nil || u.OperationID != "fetch-users" || u.Operation.Name != "ApiCall" {
		t.Fatalf("update = %+v", u)
	}
	if want := `{"method":"GET","url":"https://x.test/u?a=<b>&c","outputPath":"/workflow/users"}`; string(u.Operation.Config) != want {
		t.Errorf("config = %s, want %s", u.Operation.Config, want)
	}
	b := msgs[1].BeginExecution
	if b == nil || b.ExecutionID != "exec-1" || strings.Join(b.OperationOrder, ",") != "fetch-users" || b.OnError != "continue" {
		t.Errorf("begin = %+v", b)
	}
}

// TestDecoderProblems covers every malformed-line case: each line alone must
// give exactly the listed problems.
func TestDecoderProblems(t *testing.T) {
	type want struct {
		path, msg, suggestion string
	}
	cases := []struct {
		name string
		line string
		want []want
	}{
		{"invalid JSON", `{"type":"operationUpdate",`, []want{{"", "invalid JSON at byte", "exactly one JSON object"}}},
		{"two objects on a line", updA + " " + updB, []want{{"", "invalid JSON at byte 82: invalid character '{' after top-level value", ""}}},
		{"not an object", `["type"]`, []want{{"", "each message must be a JSON object, got array", ""}}},
		{"a string", `"hello"`, []want{{"", "got string", ""}}},
		{"missing type", `{"operationId":"a"}`, []want{{"type", `missing required key "type"`, `"type": "operationUpdate"`}}},
		{"type not a string", `{"type":1}`, []want{{"type", "type must be a string, got number", ""}}},
		{"unknown type", `{"type":"operationUpdat","operationId":"a"}`, []want{{"type", `unknown message type "operationUpdat"`, `Did you mean "operationUpdate"?`}}},
		{"unknown type far from any", `{"type":"hello"}`, []want{{"type", `unknown message type "hello"`, "Valid types"}}},
		{"unknown key", `{"type":"operationUpdate","operationId":"a","operation":{"Wait":{}},"operationID":"b"}`,
			[]want{{"operationID", `unknown key "operationID" in an operationUpdate message`, `Did you mean "operationId"?`}}},
		{"duplicate key", `{"type":"operationUpdate","operationId":"a","operationId":"b","operation":{"Wait":{}}}`,
			[]want{{"operationId", `duplicate key "operationId"`, ""}}},
		{"missing operationId", `{"type":"operationUpdate","operation":{"Wait":{}}}`, []want{{"operationId", `missing required key "operationId"`, ""}}},
		{"bad operationId", `{"type":"operationUpdate","operationId":"a b","operation":{"Wait":{}}}`,
			[]want{{"operationId", `operationId "a b" must match ^[a-zA-Z0-9_-]+$`, "letters, digits"}}},
		{"empty operationId", `{"type":"operationUpdate","operationId":"","operation":{"Wait":{}}}`, []want{{"operationId", "operationId must not be empty", ""}}},
		{"long operationId", `{"type":"operationUpdate","operationId":"` + strings.Repeat("x", 129) + `","operation":{"Wait":{}}}`,
			[]want{{"operationId", "operationId is 129 bytes long; the limit is 128", ""}}},
		{"operationId a number", `{"type":"operationUpdate","operationId":7,"operation":{"Wait":{}}}`, []want{{"operationId", "operationId must be a string, got number", ""}}},
		{"missing operation", `{"type":"operationUpdate","operationId":"a"}`, []want{{"operation", `missing required key "operation"`, ""}}},
		{"operation with two keys", `{"type":"operationUpdate","operationId":"a","operation":{"ApiCall":{},"FilterData":{}}}`,
			[]want{{"operation", "operation must have exactly one key, found 2 (ApiCall, FilterData)", "own operationUpdate"}}},
		{"operation with no key", `{"type":"operationUpdate","operationId":"a","operation":{}}`,
			[]want{{"operation", "operation must have exactly one key (the operation name), found 0", "ApiCall, FilterData"}}},
		{"operation with a duplicate key", `{"type":"operationUpdate","operationId":"a","operation":{"Wait":{},"Wait":{}}}`,
			[]want{{"operation.Wait", `duplicate key "Wait"`, ""}}},
		{"operation not an object", `{"type":"operationUpdate","operationId":"a","operation":"Wait"}`,
			[]want{{"operation", "operation must be an object with one key, the operation name, got string", ""}}},
		{"config not an object", `{"type":"operationUpdate","operationId":"a","operation":{"Wait":5}}`,
			[]want{{"operation.Wait", "operation.Wait must be an object, got number", ""}}},
		{"several problems", `{"type":"operationUpdate","operationId":"a b","extra":1}`, []want{
			{"operationId", "must match", ""},
			{"extra", `unknown key "extra"`, "Allowed keys"},
			{"operation", `missing required key "operation"`, ""},
		}},
		{"missing executionId", `{"type":"beginExecution","operationOrder":["a"]}`, []want{{"executionId", `missing required key "executionId"`, ""}}},
		{"bad executionId", `{"type":"beginExecution","executionId":"exec 1","operationOrder":["a"]}`, []want{{"executionId", `executionId "exec 1" must match`, ""}}},
		{"missing operationOrder", `{"type":"beginExecution","executionId":"e"}`, []want{{"operationOrder", `missing required key "operationOrder"`, ""}}},
		{"empty operationOrder", `{"type":"beginExecution","executionId":"e","operationOrder":[]}`, []want{{"operationOrder", "operationOrder must have at least one item", ""}}},
		{"operationOrder not an array", `{"type":"beginExecution","executionId":"e","operationOrder":"a"}`,
			[]want{{"operationOrder", "operationOrder must be an array of operation ids, got string", ""}}},
		{"operationOrder item not a string", `{"type":"beginExecution","executionId":"e","operationOrder":["a","b",3]}`,
			[]want{{"operationOrder[2]", "operationOrder[2] must be a string, got number", ""}}},
		{"bad onError", `{"type":"beginExecution","executionId":"e","operationOrder":["a"],"onError":"continu"}`,
			[]want{{"onError", `onError must be "stop" or "continue", got "continu"`, `Did you mean "continue"?`}}},
		{"onError not a string", `{"type":"beginExecution","executionId":"e","operationOrder":["a"],"onError":true}`,
			[]want{{"onError", "onError must be a string, got boolean", ""}}},
		{"unknown begin key", `{"type":"beginExecution","executionId":"e","operationOrder":["a"],"order":["a"]}`,
			[]want{{"order", `unknown key "order" in a beginExecution message`, ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader("\n"+c.line+"\n"), a2e.Limits{}))
			if len(msgs) != 0 {
				t.Errorf("got messages %+v, want none", msgs)
			}
			if len(errs) != len(c.want) {
				t.Fatalf("got %d problems %v, want %d", len(errs), errs, len(c.want))
			}
			for i, w := range c.want {
				e := errs[i]
				if e.Line != 2 {
					t.Errorf("problem %d: line %d, want 2", i, e.Line)
				}
				if e.Path != w.path {
					t.Errorf("problem %d: path %q, want %q", i, e.Path, w.path)
				}
				if !strings.Contains(e.Message, w.msg) {
					t.Errorf("problem %d: message %q, want it to contain %q", i, e.Message, w.msg)
				}
				if w.suggestion != "" && !strings.Contains(strings.Join(e.Suggestions, "|"), w.suggestion) {
					t.Errorf("problem %d: suggestions %q, want one containing %q", i, e.Suggestions, w.suggestion)
				}
				if !strings.HasPrefix(e.Error(), "line 2: ") {
					t.Errorf("problem %d: Error() = %q, want a line prefix", i, e.Error())
				}
			}
		})
	}
}

func TestDecoderProblemsNameTheOperation(t *testing.T) {
	line := `{"type":"operationUpdate","extra":true,"operationId":"fetch","operation":{"A":{},"B":{}}}`
	_, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(line), a2e.Limits{}))
	if len(errs) != 2 {
		t.Fatalf("problems: %v", errs)
	}
	for _, e := range errs {
		if e.OperationID != "fetch" {
			t.Errorf("%q: operationId %q, want fetch", e.Message, e.OperationID)
		}
	}
}

func TestDecoderBoundsProblemsPerLine(t *testing.T) {
	items := strings.Repeat("1,", 500) + "1"
	line := `{"type":"beginExecution","executionId":"e","operationOrder":[` + items + `]}`
	_, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(line), a2e.Limits{}))
	if len(errs) != 20 {
		t.Fatalf("got %d problems, want 20 (19 and a note)", len(errs))
	}
	if !strings.Contains(errs[19].Message, "too many problems") {
		t.Errorf("last problem = %q", errs[19].Message)
	}
}

func TestDecoderOversizeLine(t *testing.T) {
	long := `{"type":"operationUpdate","operationId":"big","operation":{"Wait":{"x":"` + strings.Repeat("y", 500) + `"}}}`
	doc := updA + "\n" + long + "\n" + begin + "\n"
	lim := a2e.Limits{MaxLineBytes: 100}
	msgs, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(doc), lim))
	if len(errs) != 1 || errs[0].Line != 2 || !strings.Contains(errs[0].Message, "the limit is 100 bytes") {
		t.Fatalf("problems = %v", errs)
	}
	if want := fmt.Sprintf("the line is %d bytes long", len(long)); !strings.Contains(errs[0].Message, want) {
		t.Errorf("message %q, want %q", errs[0].Message, want)
	}
	if len(msgs) != 2 || msgs[0].Line != 1 || msgs[1].Line != 3 {
		t.Fatalf("decoding did not go on after the long line: %+v", msgs)
	}

	// A line of exactly the limit passes, CRLF not counted.
	exact := `{"type":"beginExecution","executionId":"e","operationOrder":["a"]}`
	msgs, errs = decodeAll(t, a2e.NewDecoder(strings.NewReader(exact+"\r\n"), a2e.Limits{MaxLineBytes: len(exact)}))
	if len(errs) != 0 || len(msgs) != 1 {
		t.Fatalf("line at the limit: msgs %d errs %v", len(msgs), errs)
	}
	_, errs = decodeAll(t, a2e.NewDecoder(strings.NewReader(exact+"\n"), a2e.Limits{MaxLineBytes: len(exact) - 1}))
	if len(errs) != 1 {
		t.Fatalf("line one byte over: errs %v", errs)
	}
}

// endless is a reader that never ends and never sends a newline.
type endless struct{ n int64 }

func (r *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	r.n += int64(len(p))
	return len(p), nil
}

func TestDecoderStopsAtDocumentLimit(t *testing.T) {
	r := &endless{}
	d := a2e.NewDecoder(r, a2e.Limits{MaxDocumentBytes: 1 << 20})
	_, err := d.Next()
	var e *a2e.Error
	if !errors.As(err, &e) || e.Line != 1 || !strings.Contains(e.Message, "larger than the limit of 1048576 bytes") {
		t.Fatalf("err = %v", err)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("after a fatal problem Next = %v, want io.EOF", err)
	}
	if r.n > 1<<20+64<<10 {
		t.Errorf("read %d bytes of an endless input; the bound is the limit plus one buffer", r.n)
	}
}

func TestDecoderDocumentLimitNamesTheLine(t *testing.T) {
	doc := updA + "\n" + updB + "\n" + begin + "\n"
	lim := a2e.Limits{MaxDocumentBytes: int64(len(updA) + 10)}
	msgs, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(doc), lim))
	if len(msgs) != 1 || len(errs) != 1 || errs[0].Line != 2 {
		t.Fatalf("msgs %d errs %v", len(msgs), errs)
	}
}

func TestDecoderMaxMessages(t *testing.T) {
	doc := strings.Repeat(updA+"\n", 5) + begin
	msgs, errs := decodeAll(t, a2e.NewDecoder(strings.NewReader(doc), a2e.Limits{MaxMessages: 3}))
	if len(msgs) != 3 || len(errs) != 1 || errs[0].Line != 4 || !strings.Contains(errs[0].Message, "more than 3 messages") {
		t.Fatalf("msgs %d errs %v", len(msgs), errs)
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func TestDecoderReadError(t *testing.T) {
	cause := errors.New("connection reset")
	d := a2e.NewDecoder(failingReader{cause}, a2e.Limits{})
	_, err := d.Next()
	if !errors.Is(err, cause) {
		t.Fatalf("err = %v, want one wrapping the cause", err)
	}
	var e *a2e.Error
	if !errors.As(err, &e) || strings.Contains(e.Message, "connection reset") {
		t.Errorf("the public message must not carry the cause: %q", e.Message)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Errorf("then Next = %v, want io.EOF", err)
	}
}

func TestDecoderEmptyInput(t *testing.T) {
	for _, doc := range []string{"", "\n", "\r\n\r\n", "   "} {
		d := a2e.NewDecoder(strings.NewReader(doc), a2e.Limits{})
		if _, err := d.Next(); err != io.EOF {
			t.Errorf("%q: Next = %v, want io.EOF", doc, err)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	l := a2e.DefaultLimits()
	if l.MaxLineBytes != 256<<10 || l.MaxDocumentBytes != 1<<20 || l.MaxMessages != 1000 {
		t.Errorf("DefaultLimits = %+v", l)
	}
}
