package e2a_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// The four bugs differential testing against the reference found (issue 19).
// The four tests below use only the API that existed before the fix, so that
// each can be run against the old code, where it fails.

// identity_origin "" was taken as the default "user"; R says anything outside
// system|user|agent|service is an error, and the reference's
// IdentityOrigin("") raises too.
func TestIdentityOriginEmptyIsAnError(t *testing.T) {
	for _, in := range []string{
		`{"identity_origin":""}`,
		`{"protocol_version":"1.0","response_id":"r","request_id":"q","sequence":0,"is_final":true,"status":"succeeded","response_kind":"e2a.complete","timestamp":"2026-03-29T12:00:00+00:00","provenance":{},"body":{"result":1},"identity_origin":""}`,
	} {
		var err error
		if bytes.Contains([]byte(in), []byte("response_id")) {
			_, err = e2a.DecodeResponse([]byte(in), e2a.Limits{})
		} else {
			_, err = e2a.DecodeEnvelope([]byte(in), e2a.Limits{})
		}
		var e *e2a.Error
		if !errors.As(err, &e) || e.Path != "identity_origin" {
			t.Errorf("%s: got %v, want an error at identity_origin", in, err)
		}
	}
}

// A timestamp in year 1 (0001-01-01T00:00:00Z, Go's zero time) came back as
// null: it is a time like any other.
func TestYearOneTimestampIsNotNull(t *testing.T) {
	const y1 = `"0001-01-01T00:00:00+00:00"`
	e, err := e2a.DecodeEnvelope([]byte(`{"timestamp":"0001-01-01T00:00:00Z","provenance":{"converted_at":"0001-01-01T00:00:00Z"}}`), e2a.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e2a.AppendEnvelope(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"timestamp":`+y1)) || !bytes.Contains(b, []byte(`"converted_at":`+y1)) {
		t.Fatalf("year 1 lost: %s", b)
	}
	frame := `{"protocol_version":"1.0","response_id":"r","request_id":"q","sequence":0,"is_final":true,"status":"succeeded","response_kind":"e2a.complete","timestamp":"0001-01-01T00:00:00Z","provenance":{},"body":{"result":1}}`
	r, err := e2a.DecodeResponse([]byte(frame), e2a.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e2a.CheckFrame(r); err != nil {
		t.Fatalf("a year-1 frame fails the check: %v", err)
	}
	if b, _ := e2a.AppendResponse(nil, r); !bytes.Contains(b, []byte(`"timestamp":`+y1)) {
		t.Fatalf("year 1 lost: %s", b)
	}
}

// RFC 3339 §5.6 allows a lowercase "t" and "z" (its note: "T" and "Z" may
// alternatively be lower case); they were refused.
func TestTimestampLowercaseTAndZ(t *testing.T) {
	want, err := e2a.ParseTimestamp("2026-03-28T12:00:00.25Z")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2026-03-28t12:00:00.25z", "2026-03-28T12:00:00.25z", "2026-03-28t12:00:00.25Z", "2026-03-28t13:00:00.25+01:00"} {
		got, err := e2a.ParseTimestamp(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: got %v, %v; want %v", s, got, err, want)
		}
	}
}

// A JSON-RPC id beyond 2^53 became a string in provenance.details.jsonrpc_id
// while the top-level jsonrpc_id stayed a number. Both are now the number
// with its exact digits, as the reference keeps ids (Python ints are exact,
// and envelope_from_acp_jsonrpc records the id it was given, unchanged).
func TestJSONRPCIDBeyond2to53StaysTheSameNumber(t *testing.T) {
	const id = "9007199254740993" // 2^53 + 1: no float64 holds it
	m, err := e2a.DecodeACPMessage([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`), e2a.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	e := e2a.EnvelopeFromACP(m.Method, m.Params, e2a.ACPOptions{JSONRPCID: m.ID})
	b, err := e2a.AppendEnvelope(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"details":{"jsonrpc_id":`+id+`,`)) || !bytes.Contains(b, []byte(`"jsonrpc_id":`+id+`,"correlation_id"`)) {
		t.Fatalf("the two ids disagree: %s", b)
	}
	// What sluice wrote reads back, and is written again the same.
	back, err := e2a.DecodeEnvelope(b, e2a.Limits{})
	if err != nil {
		t.Fatalf("sluice's own envelope does not read back: %v", err)
	}
	if b2, _ := e2a.AppendEnvelope(nil, back); !bytes.Equal(b, b2) {
		t.Fatalf("not stable:\n%s\n%s", b, b2)
	}
}

// Skipped keys are listed for the caller's log, bounded: at most 32 paths,
// each key cut to 64 bytes, nested ones under their parent.
func TestIgnoredKeysAreListedBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"provenance":{"hint":1},"auth":{"scheme":"x"},"` + strings.Repeat("k", 100) + `":1`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `,"x%d":{"a":[1,{"b":null}]}`, i)
	}
	b.WriteString("}")
	_, ignored, err := e2a.DecodeEnvelopeIgnoring([]byte(b.String()), e2a.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ignored) != 32 || ignored[0] != "provenance.hint" || ignored[1] != "auth.scheme" || ignored[2] != strings.Repeat("k", 64) || ignored[3] != "x0" {
		t.Fatalf("ignored: %q", ignored)
	}
}
