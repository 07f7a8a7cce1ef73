package a2e

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Decoder reads a JSONL workflow document one message at a time.
//
// Lines are numbered from 1; blank lines (only spaces, tabs and CRs) and the final
// newline are skipped; CRLF line endings and a UTF-8 byte order mark before the
// first line are accepted. Memory stays bounded whatever the input: a line is
// never held beyond Limits.MaxLineBytes (the rest of a longer line is read and
// dropped, and the line is reported), and reading stops once the document passes
// Limits.MaxDocumentBytes.
//
// Documents in the reference implementation's legacy shape are converted on the
// fly (see legacy.go).
type Decoder struct {
	br    *bufio.Reader
	ld    lineDecoder
	line  int   // number of the last line read
	read  int64 // bytes read so far
	buf   []byte
	eof   bool // the input ended (after the line in buf)
	done  bool // no further results: the input ended or a fatal problem was reported
	queue []result
	qpos  int
}

// errDocTooLarge marks the point where the document passed its limit.
var errDocTooLarge = errors.New("document too large")

// NewDecoder returns a decoder reading r within lim (zero fields mean defaults).
func NewDecoder(r io.Reader, lim Limits) *Decoder { return newDecoder(r, lim, 64<<10) }

// newDecoder lets Parse, which knows the document's size, spare a large buffer.
func newDecoder(r io.Reader, lim Limits, bufSize int) *Decoder {
	lim = lim.withDefaults()
	size := min(lim.MaxLineBytes+2, bufSize)
	return &Decoder{br: bufio.NewReaderSize(r, max(size, 16)), ld: lineDecoder{lim: lim}}
}

// Next returns the next message, or io.EOF at the end of the document. A problem
// is returned as a *Error naming its line and JSON path; decoding may go on with
// the next call (a line with several problems returns them one per call). After
// a problem that ends the document (too large, too many messages, a read error)
// Next returns io.EOF.
func (d *Decoder) Next() (Message, error) {
	for {
		r, ok := d.next()
		if !ok {
			return Message{}, io.EOF
		}
		if r.err != nil {
			return Message{Line: r.line}, r.err
		}
		if r.hasMsg {
			return r.msg, nil
		}
	}
}

// Legacy reports whether the document read so far is in the legacy shape.
func (d *Decoder) Legacy() bool { return d.ld.shape == shapeLegacy }

// Line is the number of the last line read.
func (d *Decoder) Line() int { return d.line }

// next returns the next result, false at the end.
func (d *Decoder) next() (result, bool) {
	for d.qpos >= len(d.queue) {
		if d.done {
			return result{}, false
		}
		d.queue, d.qpos = d.queue[:0], 0
		d.fill()
	}
	r := d.queue[d.qpos]
	d.qpos++
	return r, true
}

// fill reads lines until one yields results or the input ends.
func (d *Decoder) fill() {
	for {
		if d.eof {
			d.done = true
			return
		}
		line, n, tooLong, err := d.readLine()
		if err == io.EOF {
			d.done = true
			return
		}
		d.line++
		switch {
		case err == errDocTooLarge:
			d.fatal(documentTooLarge(d.line, d.ld.lim.MaxDocumentBytes))
			return
		case err != nil:
			d.fatal(&Error{Line: d.line, Message: "the document could not be read", Cause: err})
			return
		case tooLong:
			d.queue = append(d.queue, result{line: d.line,
				err: lineTooLong(d.line, int(n), d.ld.lim.MaxLineBytes)})
			return
		}
		if d.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		for _, r := range d.ld.decode(d.line, line) {
			d.queue = append(d.queue, r)
			if r.fatal {
				d.done = true
				return
			}
		}
		return
	}
}

func (d *Decoder) fatal(e *Error) {
	d.queue = append(d.queue, result{line: e.Line, err: e, fatal: true})
	d.done = true
}

// readLine reads one line into d.buf and returns it without its line ending, with
// the line's length in bytes. A line longer than the limit is consumed but not
// kept (tooLong). io.EOF means no bytes were left at all.
func (d *Decoder) readLine() (line []byte, n int64, tooLong bool, err error) {
	limit := d.ld.lim.MaxLineBytes
	d.buf = d.buf[:0]
	got := false
	for {
		chunk, rerr := d.br.ReadSlice('\n')
		got = got || len(chunk) > 0
		n += int64(len(chunk))
		d.read += int64(len(chunk))
		if d.read > d.ld.lim.MaxDocumentBytes {
			return nil, n, false, errDocTooLarge
		}
		if !tooLong {
			if len(d.buf)+len(chunk) > limit+2 { // room for "\r\n"
				tooLong, d.buf = true, d.buf[:0]
			} else {
				d.buf = append(d.buf, chunk...)
			}
		}
		switch rerr {
		case nil:
			n-- // the length of a line does not count its "\n"
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if !got {
				return nil, 0, false, io.EOF
			}
			d.eof = true
		default:
			return nil, n, false, rerr
		}
		break
	}
	line = bytes.TrimSuffix(d.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if tooLong || len(line) > limit {
		return nil, n, true, nil
	}
	return line, n, false, nil
}
