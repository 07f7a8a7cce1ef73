package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

// seedLines adds every line of the goldens' inputs and of the write golden.
func seedLines(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.ndjson"))
	files = append(files, filepath.Join("testdata", "write.golden.ndjson"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			f.Add(line)
		}
	}
}

// codecCodes are the codes Decode itself returns.
var codecCodes = []session.ErrorCode{session.CodeParseError, session.CodeInvalidMessage,
	session.CodeSchemaViolation, session.CodeVersionMismatch}

// checkDecodeError: a failure is an *Error of the codec's codes with a
// message, an offset inside the line, and a reply that is a valid message.
func checkDecodeError(t *testing.T, reg *session.Registry, data []byte, err error) {
	t.Helper()
	var e *session.Error
	if !errors.As(err, &e) || e.Message == "" || e.Offset < 0 || e.Offset > len(data) {
		t.Fatalf("bad error %#v for %q", err, data)
	}
	ok := false
	for _, c := range codecCodes {
		ok = ok || e.Code == c
	}
	if !ok {
		t.Fatalf("code %q is not one of the codec's", e.Code)
	}
	if e.ID != "" && !session.ValidID(e.ID) {
		t.Fatalf("error id %q is not an id", e.ID)
	}
	reply, rerr := session.Marshal(fixedStamper().Stamp(e.Reply()))
	if rerr != nil {
		t.Fatalf("reply: %v", rerr)
	}
	if _, derr := reg.Decode(reply, session.Limits{}); derr != nil {
		t.Fatalf("the reply %s does not decode: %v", reply, derr)
	}
}

// FuzzDecode: arbitrary lines never panic; a failure is a clear *Error; a
// message round-trips (encode(decode(x)) is a fixed point), and a typed
// message of version 1.0 decodes as encoding/json would decode it.
func FuzzDecode(f *testing.F) {
	seedLines(f)
	f.Add([]byte(`{"a2e":"1.0","type":"tool/call/req","id":"00000000000000000000000000000001","ts":1,"tool_name":"a","arguments":{"\ud800":"\udc00"}}`))
	f.Add([]byte(`{"a2e":"1.0","type":"invoke/event","id":"00000000000000000000000000000001","ts":1,"req_id":"00000000000000000000000000000001","kind":"log","seq":-0.0e5}`))
	reg := newRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lim := range []session.Limits{{}, {MaxLineBytes: 200, MaxDepth: 3}} {
			skipped := 0
			m, err := reg.DecodeNoting(data, lim, func(f session.IgnoredField) {
				if f.Path == "" {
					t.Fatalf("a skipped field without a path in %q", data)
				}
				skipped++
			})
			if _, plainErr := reg.Decode(data, lim); (plainErr == nil) != (err == nil) {
				t.Fatalf("Decode and DecodeNoting differ on %q: %v / %v", data, plainErr, err)
			}
			if err != nil {
				checkDecodeError(t, reg, data, err)
				continue
			}
			if !json.Valid(data) {
				t.Fatalf("decoded a line that is not JSON: %q", data)
			}
			assertRoundTrip(t, m)
			if skipped == 0 {
				assertSameAsEncodingJSON(t, data, m)
			}
		}
	})
}

// assertSameAsEncodingJSON: where encoding/json also takes the line (it
// refuses 1e3 for an int; it matches keys without regard to case, so only a
// message in which the codec skipped no field is compared), both read the same.
func assertSameAsEncodingJSON(t *testing.T, data []byte, m session.Message) {
	t.Helper()
	if _, generic := m.(*session.Generic); generic || m.Head().A2E != "1.0" {
		return
	}
	ref := reflect.New(reflect.TypeOf(m).Elem()).Interface().(session.Message)
	if err := json.Unmarshal(data, ref); err != nil {
		return
	}
	*ref.Head() = *m.Head() // the base fields are read apart (version alias)
	nullRawIsAbsent(reflect.ValueOf(ref))
	got, _ := session.Marshal(m)
	want, err := session.Marshal(ref)
	if err != nil {
		return // e.g. a raw value encoding/json kept but cannot write
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the codec and encoding/json differ on %q:\ncodec %s\njson  %s", data, got, want)
	}
}

// nullRawIsAbsent sets every json.RawMessage holding null to nil: the codec
// reads null as an absent field, where encoding/json keeps the literal.
func nullRawIsAbsent(v reflect.Value) {
	switch {
	case v.Type() == rawMessageType:
		if bytes.Equal(bytes.TrimSpace(v.Bytes()), []byte("null")) {
			v.SetBytes(nil)
		}
	case v.Kind() == reflect.Pointer:
		if !v.IsNil() {
			nullRawIsAbsent(v.Elem())
		}
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				nullRawIsAbsent(v.Field(i))
			}
		}
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			nullRawIsAbsent(v.Index(i))
		}
	}
}

// FuzzClient: whatever a server sends after a good handshake, the client
// neither panics nor hangs: it reads to the end of the stream and closes.
func FuzzClient(f *testing.F) {
	seedLines(f)
	f.Add([]byte("{\"a2e\":\"1.0\",\"type\":\"ping\",\"id\":\"00000000000000000000000000000009\",\"ts\":1}\n" +
		"{\"a2e\":\"1.0\",\"type\":\"shutdown\",\"id\":\"00000000000000000000000000000008\",\"ts\":1}\n"))
	const hsID = "0000000000000000000000000000abcd"
	hs := `{"a2e":"1.0","type":"handshake/resp","id":"00000000000000000000000000000001","ts":1,"req_id":"` + hsID + `","ok":true,"max_parallel":2}` + "\n"
	f.Fuzz(func(t *testing.T, data []byte) {
		var got int
		// The stream starts once the client has written its handshake, as a
		// server's answer would.
		gate := make(chan struct{})
		r := &gatedReader{gate: gate, r: io.MultiReader(strings.NewReader(hs), bytes.NewReader(data))}
		w := &gateWriter{gate: gate}
		c, err := session.Connect(context.Background(), r, w, session.ClientOptions{
			Stamper: session.Stamper{NewID: func() string { return hsID }},
			OnEvent: func(session.Message) { got++ },
			Limits:  session.Limits{MaxLineBytes: 4096},
		})
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		// Close waits for the reading goroutine, which ends at the end of
		// data: every line has been routed by then.
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// gatedReader reads r once gate is closed. Its Close does nothing, so that
// Client.Close waits for the reading goroutine to reach the end of r.
type gatedReader struct {
	gate chan struct{}
	r    io.Reader
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.gate
	return g.r.Read(p)
}

func (*gatedReader) Close() error { return nil }

// gateWriter discards what it is given and opens the gate at the first write.
type gateWriter struct {
	gate chan struct{}
	once sync.Once
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.once.Do(func() { close(g.gate) })
	return len(p), nil
}
