package e2a_test

import (
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// The §11.1 envelope, as a gateway receives it.
var specEnvelope = []byte(`{"protocol_version":"1.0","request_id":"req_abc_01","session_id":"sess_xyz","channel":"web","method":"chat.send","is_stream":true,"timestamp":"2026-03-28T12:00:00+00:00","identity_origin":"user","user_id":"u_001","params":{"content":"Hello","mode":"plan","query":"Hello"},"provenance":{"source_protocol":"e2a"}}`)

// The first frame of §12.8.
var specChunk = []byte(`{"protocol_version":"1.0","response_id":"r1","request_id":"req_1","sequence":0,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-03-29T12:00:00+00:00","provenance":{"source_protocol":"e2a"},"body":{"delta_kind":"text","delta":"Hello"}}`)

// Goal (issue 3): decode + encode of the §11.1 envelope ≤ 3.3 µs on one core.
func BenchmarkEnvelopeDecodeEncode(b *testing.B) {
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(specEnvelope)))
	b.ReportAllocs()
	for b.Loop() {
		e, err := e2a.DecodeEnvelope(specEnvelope, e2a.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if buf, err = e2a.AppendEnvelope(buf[:0], e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChunkDecodeEncode(b *testing.B) {
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(specChunk)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := e2a.DecodeResponse(specChunk, e2a.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if buf, err = e2a.AppendResponse(buf[:0], r); err != nil {
			b.Fatal(err)
		}
	}
}

// The same work through encoding/json (the mirror structs of reference_test.go,
// no compatibility paths, no validation): the baseline that ruled it out.
func BenchmarkEnvelopeEncodingJSON(b *testing.B) {
	b.SetBytes(int64(len(specEnvelope)))
	b.ReportAllocs()
	for b.Loop() {
		var r refEnvelope
		if err := json.Unmarshal(specEnvelope, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(&r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEnvelopeEncodeOnly(b *testing.B) {
	e, err := e2a.DecodeEnvelope(specEnvelope, e2a.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = e2a.AppendEnvelope(buf[:0], e)
	}
}

// A frame written through a StreamWriter to an NDJSON sink: what the gateway
// pays per streamed chunk.
func BenchmarkStreamWriterChunk(b *testing.B) {
	req := e2a.NewEnvelope()
	req.RequestID = "req_1"
	w, err := e2a.NewStreamWriter(req, e2a.NewNDJSONSink(discard{}), e2a.StreamOptions{NewID: func() string { return "r" }})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Chunk("text", "Hello"); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
