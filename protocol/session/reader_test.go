package session_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sluicehq/sluice/protocol/session"
)

func pingLine(id string) string {
	return `{"a2e":"1.0","type":"ping","id":"` + id + `","ts":1763900000.25}`
}

// callLine is a tool/call/req of exactly n bytes (n >= 120).
func callLine(n int) string {
	head := `{"a2e":"1.0","type":"tool/call/req","id":"` + idReq + `","ts":1,"tool_name":"op.Wait","arguments":{"pad":"`
	tail := `"}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestReaderLongLines: lines longer than the reader's 64 KiB buffer are read
// whole when within the limit, and skipped (then reading resumes) when over
// it, also when the stream hands out a byte at a time.
func TestReaderLongLines(t *testing.T) {
	const limit = 300 << 10
	in := strings.Join([]string{
		callLine(200 << 10),    // within the limit, over the buffer
		callLine(limit),        // exactly the limit
		callLine(limit + 1),    // one over
		callLine(3 * limit),    // far over
		pingLine(idReq2),       // read after the skipped lines
		callLine(limit) + "\r", // the limit, then CRLF
	}, "\n")
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(in) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(in)) },
	}
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			rd := session.NewReader(r(), newRegistry(t), session.Limits{MaxLineBytes: limit})
			want := []string{"tool/call/req", "tool/call/req", "over", "over", "ping", "tool/call/req"}
			for i, w := range want {
				m, err := rd.Next()
				if rd.Line() != int64(i+1) {
					t.Errorf("Line() = %d, want %d", rd.Line(), i+1)
				}
				if w == "over" {
					var e *session.Error
					if !errors.As(err, &e) || e.Code != session.CodeInvalidMessage || e.Line != int64(i+1) ||
						!strings.Contains(e.Message, "over the 307200-byte limit") {
						t.Fatalf("line %d: got %v, want the over-limit error", i+1, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if m.Head().Type != w {
					t.Fatalf("line %d: %s, want %s", i+1, m.Head().Type, w)
				}
			}
			if _, err := rd.Next(); err != io.EOF {
				t.Fatalf("at the end: %v, want io.EOF", err)
			}
			if _, err := rd.Next(); err != io.EOF {
				t.Fatalf("after the end: %v, want io.EOF again", err)
			}
			if rd.Line() != int64(len(want)) {
				t.Errorf("Line() at the end = %d, want %d", rd.Line(), len(want))
			}
		})
	}
}

// TestReaderDefaultLimit: without limits a line may be 1 MiB.
func TestReaderDefaultLimit(t *testing.T) {
	in := callLine(session.DefaultMaxLineBytes) + "\n" + callLine(session.DefaultMaxLineBytes+1) + "\n"
	rd := session.NewReader(strings.NewReader(in), newRegistry(t), session.Limits{})
	if _, err := rd.Next(); err != nil {
		t.Fatalf("a line of exactly 1 MiB: %v", err)
	}
	if _, err := rd.Next(); err == nil {
		t.Fatal("a line of 1 MiB + 1 was read")
	}
}

// TestReaderIOError: an error of the stream ends reading; it is not an
// *Error (which would mean "answer and go on").
func TestReaderIOError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(pingLine(idReq)+"\n"+`{"a2e":"1.0","ty`), iotest.ErrReader(boom))
	rd := session.NewReader(r, newRegistry(t), session.Limits{})
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := rd.Next()
	var e *session.Error
	if !errors.Is(err, boom) || errors.As(err, &e) {
		t.Fatalf("got %v, want the stream's error", err)
	}
}

// TestReaderNilRegistry: a Reader made without a registry (as the gateway
// makes one only to read lines) decodes with the base and tool namespaces.
func TestReaderNilRegistry(t *testing.T) {
	in := pingLine(idReq) + "\n" + `{"a2e":"1.0","type":"mcp/server/list/req","id":"` + idReq + `","ts":1}` + "\n"
	rd := session.NewReader(strings.NewReader(in), nil, session.Limits{})
	if m, err := rd.Next(); err != nil || m.Head().Type != session.TypePing {
		t.Fatalf("got %v, %v", m, err)
	}
	if m, err := rd.Next(); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(*session.Generic); !ok {
		t.Fatalf("a plugin type without its plugin: %T, want *Generic", m)
	}
}

// TestReadLine: ReadLine gives the raw lines, blank ones skipped, without
// "\n" or "\r\n".
func TestReadLine(t *testing.T) {
	rd := session.NewReader(strings.NewReader("a\r\n\n  \nb\n\r\nc"), nil, session.Limits{MaxLineBytes: 4})
	var got []string
	for {
		line, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if strings.Join(got, ",") != "a,b,c" || rd.Line() != 6 {
		t.Errorf("got %q at line %d", got, rd.Line())
	}
}

// TestDecodeDoesNotAlias: the message holds no part of the line it came
// from: the caller may reuse the buffer (Reader does).
func TestDecodeDoesNotAlias(t *testing.T) {
	reg := newRegistry(t)
	lines := []string{
		`{"a2e":"1.0","type":"tool/call/req","id":"` + idReq + `","ts":1,"tool_name":"op.Wait","arguments":{"a":"b"},"session_id":"s"}`,
		`{"a2e":"1.0","type":"chain/x","id":"` + idReq + `","ts":1,"k":{"a":"b"}}`,
		`{"a2e":"1.0","type":"tool/list/resp","id":"` + idReq + `","ts":1,"req_id":"` + idReq2 + `","tools":[{"name":"op.A","tags":["t"],"input_parameters":[{"name":"q","type":"string","description":"d"}],"input_schema":{"type":"object"}}]}`,
	}
	for _, line := range lines {
		buf := []byte(line)
		m, err := reg.Decode(buf, session.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		before, _ := session.Marshal(m)
		for i := range buf {
			buf[i] = 'Z'
		}
		after, _ := session.Marshal(m)
		if !bytes.Equal(before, after) {
			t.Errorf("the message changed with its input:\n%s\n%s", before, after)
		}
	}
}

// TestDecodeLimits: custom limits apply to Decode as to the Reader.
func TestDecodeLimits(t *testing.T) {
	reg := newRegistry(t)
	line := []byte(`{"a2e":"1.0","type":"tool/call/req","id":"` + idReq + `","ts":1,"tool_name":"op.Wait","arguments":{"a":{"b":{"c":1}}}}`)
	if _, err := reg.Decode(line, session.Limits{MaxDepth: 4}); err != nil {
		t.Errorf("4 levels within MaxDepth 4: %v", err)
	}
	_, err := reg.Decode(line, session.Limits{MaxDepth: 3})
	var e *session.Error
	if !errors.As(err, &e) || e.Code != session.CodeInvalidMessage || e.Path != "arguments" || e.ID != idReq || e.Type != "tool/call/req" {
		t.Errorf("4 levels over MaxDepth 3: %#v", err)
	}
	_, err = reg.Decode(line, session.Limits{MaxLineBytes: len(line) - 1})
	if !errors.As(err, &e) || e.Code != session.CodeInvalidMessage || !strings.Contains(e.Message, "line limit") {
		t.Errorf("over MaxLineBytes: %v", err)
	}
}

// The limit may change between lines: a host reads a handshake under a small
// one, then the session under its own.
func TestReaderSetMaxLineBytes(t *testing.T) {
	long := strings.Repeat("x", 100)
	rd := session.NewReader(strings.NewReader(long+"\n"+long+"\n"), nil, session.Limits{MaxLineBytes: 50})
	if _, err := rd.ReadLine(); err == nil {
		t.Fatal("a 100-byte line under a 50-byte limit")
	}
	rd.SetMaxLineBytes(200)
	if l, err := rd.ReadLine(); err != nil || string(l) != long {
		t.Fatalf("after raising the limit: %q %v", l, err)
	}
}
