package session

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Reader reads messages, one per line, from a byte stream. A line over the
// size limit is an *Error (invalid_message) after which reading goes on at
// the next line: the rest of the long line is read and dropped, never held.
// Blank lines are skipped; a trailing "\r" is dropped; a last line without a
// newline still counts. A Reader is not safe for concurrent use.
type Reader struct {
	br   *bufio.Reader
	reg  *Registry
	lim  Limits
	buf  []byte
	line int64
}

// NewReader returns a Reader of messages of reg's types from r. A nil reg
// (for a caller that only wants ReadLine) decodes with NewRegistry's types.
func NewReader(r io.Reader, reg *Registry, lim Limits) *Reader {
	lim = lim.withDefaults()
	size := min(64<<10, lim.MaxLineBytes+2)
	return &Reader{br: bufio.NewReaderSize(r, max(size, 16)), reg: reg, lim: lim}
}

// Next reads and decodes the next message (see Registry.Decode). An *Error
// is about one line, which the caller may answer (Error.Reply) before calling
// Next again; any other error (io.EOF at the end) ends the stream.
func (r *Reader) Next() (Message, error) {
	line, err := r.ReadLine()
	if err != nil {
		return nil, err
	}
	if r.reg == nil {
		r.reg = NewRegistry()
	}
	m, err := r.reg.Decode(line, r.lim)
	if e, ok := err.(*Error); ok {
		e.Line = r.line
	}
	return m, err
}

// SetMaxLineBytes changes the line limit from the next line on (a host
// reads the handshake under MaxHandshakeBytes, then the session under its
// own limit). n <= 0 is the default limit. The buffer keeps its size: a
// longer line is read in several chunks.
func (r *Reader) SetMaxLineBytes(n int) {
	r.lim.MaxLineBytes = Limits{MaxLineBytes: n}.withDefaults().MaxLineBytes
}

// Line is the 1-based number of the last line read.
func (r *Reader) Line() int64 { return r.line }

// ReadLine returns the next non-blank line without its newline. The slice is
// valid until the next call. A line over the limit is an *Error; reading may
// go on after it.
func (r *Reader) ReadLine() ([]byte, error) {
	for {
		r.buf = r.buf[:0]
		r.line++
		read, tooLong := 0, false
		for {
			chunk, err := r.br.ReadSlice('\n')
			read += len(chunk)
			if !tooLong {
				if len(r.buf)+len(chunk) > r.lim.MaxLineBytes+2 { // room for "\r\n"
					tooLong = true
					r.buf = r.buf[:0]
				} else {
					r.buf = append(r.buf, chunk...)
				}
			}
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) && read > 0 {
				break // a last line without a newline; io.EOF comes next time
			}
			if read == 0 {
				r.line-- // no line was read: Line stays the last one
			}
			return nil, err
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(r.buf, []byte("\n")), []byte("\r"))
		if tooLong || len(line) > r.lim.MaxLineBytes {
			e := errorf(CodeInvalidMessage, "", "the line is over the %d-byte limit; it was skipped", r.lim.MaxLineBytes)
			e.Line = r.line
			r.shrink()
			return nil, e
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

// shrink lets go of a buffer a long line grew, so an idle session holds little.
func (r *Reader) shrink() {
	if cap(r.buf) > 256<<10 {
		r.buf = nil
	}
}
