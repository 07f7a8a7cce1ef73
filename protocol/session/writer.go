package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Writer writes messages, one compact JSON object per line. Each message is
// one Write call of its whole line, under a lock, so a Writer is safe for
// concurrent use and lines never interleave.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	st  Stamper
	lim Limits
	buf bytes.Buffer
	enc *json.Encoder
	err error // sticky: after a failed Write the stream may hold half a line
}

// NewWriter returns a Writer to w. st stamps the base fields a message leaves
// empty; lim.MaxLineBytes bounds a line (the peer's limit).
func NewWriter(w io.Writer, st Stamper, lim Limits) *Writer {
	wr := &Writer{w: w, st: st, lim: lim.withDefaults()}
	wr.enc = json.NewEncoder(&wr.buf)
	wr.enc.SetEscapeHTML(false)
	return wr
}

// Write stamps m (Stamper.Stamp: a2e, type, id and ts when empty) and writes
// it as one line. A message over the line limit is an *Error
// (invalid_message) and nothing is written: the caller can answer otherwise
// (e.g. with a truncated result). After an error of the underlying writer
// every Write returns that error.
func (w *Writer) Write(m Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.st.Stamp(m)
	h := m.Head()
	if _, generic := m.(*Generic); !generic && h.Type != m.MessageType() {
		return fmt.Errorf("session: a %T has type %q, not %q", m, h.Type, m.MessageType())
	}
	// What the peer would refuse is refused here, where the caller can see it.
	if !validType(h.Type) {
		return fmt.Errorf("session: a %T needs a type of segments of letters, digits, '_', '-' or '.' joined by '/', not %q", m, h.Type)
	}
	if !ValidID(h.ID) {
		return fmt.Errorf("session: %s: id must be 32 hex characters", h.Type)
	}
	w.buf.Reset()
	if err := w.enc.Encode(m); err != nil {
		return fmt.Errorf("session: encode %s: %w", m.Head().Type, err)
	}
	if n := w.buf.Len() - 1; n > w.lim.MaxLineBytes {
		w.shrink()
		return errorf(CodeInvalidMessage, "", "the %s message is %d bytes, over the %d-byte line limit", m.Head().Type, n, w.lim.MaxLineBytes)
	}
	_, err := w.w.Write(w.buf.Bytes())
	w.shrink()
	if err != nil {
		w.err = err
	}
	return err
}

// broken is the error of the underlying writer that stopped w, or nil.
func (w *Writer) broken() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Writer) shrink() {
	if w.buf.Cap() > 256<<10 {
		w.buf = bytes.Buffer{}
	}
}

// Marshal returns m as one compact line without its newline, as a Writer
// writes it (m is not stamped).
func Marshal(m Message) ([]byte, error) { return marshalCompact(m) }

// marshalCompact is json.Marshal without HTML escaping: "<" stays "<", as
// the peer sent it and as Python's json.dumps writes it.
func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
