package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/session"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// fixedNow stands in for the clock in every golden file.
var fixedNow = time.Date(2026, 11, 23, 9, 30, 0, 123456000, time.UTC)

// fixedStamper stamps with fixedNow and ids ffff...0001, ffff...0002, ...
func fixedStamper() session.Stamper {
	n := 0
	return session.Stamper{
		Now: func() time.Time { return fixedNow },
		NewID: func() string {
			n++
			return fmt.Sprintf("ffffffffffffffffffffffff%08x", n)
		},
	}
}

// newRegistry is the registry of every test: base, tool and mcp.
func newRegistry(t testing.TB) *session.Registry {
	t.Helper()
	reg := session.NewRegistry()
	if err := reg.Register(session.MCP); err != nil {
		t.Fatal(err)
	}
	return reg
}

// streamLimits bound the stream goldens, so that an oversized line fits in a
// readable file.
var streamLimits = session.Limits{MaxLineBytes: 160}

// Golden folders of testdata/. Each input NAME.ndjson has its expected output
// in NAME.golden.json.
//
//   - decode/: every line (every "\n"-separated piece, as is, "\r" and all)
//     goes through Registry.Decode with the default limits.
//   - stream/: the whole file goes through a Reader with streamLimits, until
//     io.EOF.
//
// A decoded line shows its Go type, every Go field as decoded (so that a
// reader sees what was understood, not only what is written back) and the
// line Marshal writes for it. A line that fails shows the *Error, its text and
// the `error` message Reply makes of it, as a Writer would send it.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"decode", "stream"} {
		inputs, _ := filepath.Glob(filepath.Join("testdata", dir, "*.ndjson"))
		if len(inputs) == 0 {
			t.Errorf("testdata/%s has no inputs", dir)
		}
		for _, in := range inputs {
			t.Run(dir+"/"+filepath.Base(in), func(t *testing.T) {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				var out []any
				if dir == "decode" {
					out = goldenDecode(t, data)
				} else {
					out = goldenStream(t, data)
				}
				compareGolden(t, strings.TrimSuffix(in, ".ndjson")+".golden.json", out)
			})
		}
	}
}

func goldenDecode(t *testing.T, data []byte) []any {
	reg := newRegistry(t)
	st := fixedStamper()
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // the file's final newline ends the last line
	}
	out := []any{}
	for i, line := range lines {
		m, err := reg.Decode(line, session.Limits{})
		out = append(out, result(t, st, i+1, line, m, err))
	}
	return out
}

func goldenStream(t *testing.T, data []byte) []any {
	reg := newRegistry(t)
	st := fixedStamper()
	rd := session.NewReader(bytes.NewReader(data), reg, streamLimits)
	out := []any{}
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("the reader does not end")
		}
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		out = append(out, result(t, st, int(rd.Line()), nil, m, err))
	}
}

// result is one line's entry in a golden file.
func result(t *testing.T, st session.Stamper, line int, input []byte, m session.Message, err error) ordered {
	t.Helper()
	o := ordered{{"line", line}}
	if input != nil {
		o = append(o, kv{"input", string(input)})
	}
	if err != nil {
		var e *session.Error
		if !errors.As(err, &e) {
			t.Fatalf("line %d: error %v is not a *session.Error", line, err)
		}
		checkErrorText(t, e)
		reply, rerr := session.Marshal(st.Stamp(e.Reply()))
		if rerr != nil {
			t.Fatalf("line %d: reply: %v", line, rerr)
		}
		assertDecodesAs(t, reply, e.Reply())
		return append(o, kv{"error", e}, kv{"text", e.Error()}, kv{"reply", string(reply)})
	}
	enc, merr := session.Marshal(m)
	if merr != nil {
		t.Fatalf("line %d: encode: %v", line, merr)
	}
	assertRoundTrip(t, m)
	return append(o, kv{"go", fmt.Sprintf("%T", m)}, kv{"fields", dump(m)}, kv{"encoded", string(enc)})
}

// checkErrorText: an error names something, and never carries a value that
// only a field could hold (the goldens' secrets all start with "slk_secret").
func checkErrorText(t *testing.T, e *session.Error) {
	t.Helper()
	if e.Message == "" || !e.Code.Known() {
		t.Errorf("error without a message or with an unknown code: %#v", e)
	}
	if strings.Contains(e.Error(), "slk_secret") {
		t.Errorf("the error shows a field's value: %s", e.Error())
	}
}

// assertDecodesAs: a reply the codec writes decodes back as that reply.
func assertDecodesAs(t *testing.T, line []byte, want *session.ErrorMessage) {
	t.Helper()
	m, err := newRegistry(t).Decode(line, session.Limits{})
	if err != nil {
		t.Fatalf("the reply %s does not decode: %v", line, err)
	}
	got, ok := m.(*session.ErrorMessage)
	if !ok || got.Code != want.Code || got.ReqID != want.ReqID || got.Message != want.Message {
		t.Fatalf("the reply %s decodes as %#v", line, m)
	}
}

func compareGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	if *update {
		if err := os.WriteFile(name, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test ./protocol/session -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run with -update and review the diff.\ngot:\n%s", name, got)
	}
}

func TestGoldenFilesHaveInputs(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "*", "*.golden.json"))
	for _, out := range outs {
		if _, err := os.Stat(strings.TrimSuffix(out, ".golden.json") + ".ndjson"); err != nil {
			t.Errorf("%s has no input", out)
		}
	}
}
