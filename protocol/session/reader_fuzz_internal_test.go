package session

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

// FuzzReader: a stream of arbitrary bytes through a Reader with a small line
// limit never panics, never holds more than about twice the limit, and reads
// what splitting the stream at "\n" says it holds: each line without one
// trailing "\r", blank lines skipped, a line over the limit an error after
// which reading goes on.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.ndjson"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte("\r\n\r\n{}\n\n"), uint8(1))
	reg := NewRegistry()
	if err := reg.Register(MCP); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		const limit = 120
		lim := Limits{MaxLineBytes: limit}
		var src io.Reader = bytes.NewReader(data)
		switch mode % 3 {
		case 1:
			src = iotest.OneByteReader(src)
		case 2:
			src = iotest.HalfReader(src)
		}
		rd := NewReader(src, reg, lim)
		want := expectedLines(data, limit)
		for i := 0; ; i++ {
			m, err := rd.Next()
			if cap(rd.buf) > 2*(limit+2)+64 {
				t.Fatalf("the reader holds %d bytes for a %d-byte limit", cap(rd.buf), limit)
			}
			if errors.Is(err, io.EOF) {
				if i != len(want) {
					t.Fatalf("%d lines read, want %d", i, len(want))
				}
				if n := lineCount(data); rd.Line() != n {
					t.Fatalf("Line() at the end = %d, want %d", rd.Line(), n)
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("line %d read past the %d expected: %v %v", rd.Line(), len(want), m, err)
			}
			w := want[i]
			if rd.Line() != w.line {
				t.Fatalf("Line() = %d, want %d", rd.Line(), w.line)
			}
			var e *Error
			switch {
			case w.over:
				if !errors.As(err, &e) || e.Code != CodeInvalidMessage || e.Line != w.line {
					t.Fatalf("line %d: %v, want the over-limit error", w.line, err)
				}
			case err != nil:
				_, derr := reg.Decode(w.text, lim)
				if !errors.As(err, &e) || derr == nil || e.Code != derr.(*Error).Code || e.Line != w.line {
					t.Fatalf("line %d: %v, want as Decode: %v", w.line, err, derr)
				}
			default:
				dm, derr := reg.Decode(w.text, lim)
				if derr != nil || dm.Head().Type != m.Head().Type || dm.Head().ID != m.Head().ID {
					t.Fatalf("line %d: read %v, Decode gives %v, %v", w.line, m, dm, derr)
				}
			}
		}
	})
}

type wantLine struct {
	line int64
	text []byte
	over bool
}

// lineCount is the number of lines in data, a last one without "\n" included.
func lineCount(data []byte) int64 {
	n := int64(bytes.Count(data, []byte("\n")))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// expectedLines is the oracle: the stream split at "\n".
func expectedLines(data []byte, limit int) []wantLine {
	pieces := bytes.Split(data, []byte("\n"))
	if len(pieces[len(pieces)-1]) == 0 {
		pieces = pieces[:len(pieces)-1] // the final newline ends the last line
	}
	var out []wantLine
	for i, p := range pieces {
		p = bytes.TrimSuffix(p, []byte("\r"))
		switch {
		case len(p) > limit:
			out = append(out, wantLine{line: int64(i + 1), over: true})
		case len(bytes.TrimSpace(p)) == 0:
		default:
			out = append(out, wantLine{line: int64(i + 1), text: p})
		}
	}
	return out
}
