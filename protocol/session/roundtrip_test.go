package session_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

// assertRoundTrip: m encodes to one compact JSON line that decodes again to a
// message of the same Go type, and from there encode(decode(x)) is a fixed
// point: the same bytes, the same Go value.
func assertRoundTrip(t testing.TB, m session.Message) {
	t.Helper()
	reg := newRegistry(t)
	b1, err := session.Marshal(m)
	if err != nil {
		t.Fatalf("encode %T: %v", m, err)
	}
	if bytes.ContainsAny(b1, "\n\r") {
		t.Fatalf("an encoded message holds a line break: %q", b1)
	}
	lim := session.Limits{MaxLineBytes: len(b1) + 1}
	m2, err := reg.Decode(b1, lim)
	if err != nil {
		t.Fatalf("the encoded %T does not decode: %v\n%s", m, err, b1)
	}
	if reflect.TypeOf(m2) != reflect.TypeOf(m) {
		t.Fatalf("%T decodes back as %T:\n%s", m, m2, b1)
	}
	b2, err := session.Marshal(m2)
	if err != nil {
		t.Fatalf("encode again: %v", err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("encode(decode(x)) is not stable:\n%s\n%s", b1, b2)
	}
	m3, err := reg.Decode(b2, lim)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m2, m3) {
		t.Fatalf("decode(encode(decode(x))) differs:\n%#v\n%#v", m2, m3)
	}
}

// TestRoundTripEveryType: each registered type has a decode golden whose
// lines round-trip (TestGolden runs assertRoundTrip on every line that
// decodes); this test makes sure none is left out.
func TestRoundTripEveryType(t *testing.T) {
	reg := newRegistry(t)
	seen := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join("testdata", "decode", "*.ndjson"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if m, err := reg.Decode(line, session.Limits{}); err == nil {
				seen[m.Head().Type] = true
				assertRoundTrip(t, m)
			}
		}
	}
	for _, typ := range reg.Types() {
		if !seen[typ] {
			t.Errorf("no decode golden has a valid %s", typ)
		}
	}
}

// TestRoundTripBuilt: messages built in Go, as the server and the client make
// them, round-trip too, including with every optional field empty.
func TestRoundTripBuilt(t *testing.T) {
	st := fixedStamper()
	for _, m := range builtMessages() {
		t.Run(m.MessageType(), func(t *testing.T) {
			assertRoundTrip(t, st.Stamp(m))
		})
	}
	reg := newRegistry(t)
	for _, typ := range reg.Types() {
		t.Run("zero "+typ, func(t *testing.T) {
			m := reg.New(typ)
			st.Stamp(m)
			b, err := session.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			// A zero message may lack required fields; if it decodes, it
			// round-trips.
			if _, err := reg.Decode(b, session.Limits{}); err == nil {
				assertRoundTrip(t, m)
			}
		})
	}
}
