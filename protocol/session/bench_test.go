package session_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

// The tool/call/req and tool/call/resp of docs/protocols/session.md's
// transcript, as an agent and sluice send them.
var (
	benchCallReq  = []byte(`{"a2e":"1.0","type":"tool/call/req","id":"00000000000000000000000000000004","ts":1763900000.3,"tool_name":"op.FilterData","arguments":{"inputPath":"/input/tickets","conditions":[{"field":"priority","operator":"==","value":"high"}],"input":{"tickets":[{"id":1,"priority":"high"},{"id":2,"priority":"low"}]}}}`)
	benchCallResp = []byte(`{"a2e":"1.0","type":"tool/call/resp","id":"0a85c1dd3f0f4da297eb5a241be696e6","ts":1795450587.25104,"req_id":"00000000000000000000000000000004","data":{"success":true,"tool_name":"op.FilterData","data":[{"id":1,"priority":"high"}],"summary":"execution exec-e1fe8094dc2bfee073c96f79 success","duration_ms":2}}`)
)

func benchDecode(b *testing.B, line []byte) {
	reg := newRegistry(b)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Decode(line, session.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEncode(b *testing.B, line []byte) {
	m, err := newRegistry(b).Decode(line, session.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	w := session.NewWriter(io.Discard, session.Stamper{}, session.Limits{})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeToolCallReq(b *testing.B)  { benchDecode(b, benchCallReq) }
func BenchmarkDecodeToolCallResp(b *testing.B) { benchDecode(b, benchCallResp) }
func BenchmarkEncodeToolCallReq(b *testing.B)  { benchEncode(b, benchCallReq) }
func BenchmarkEncodeToolCallResp(b *testing.B) { benchEncode(b, benchCallResp) }

// BenchmarkReaderStream: a Reader over a stream of the two lines, one after
// the other, as a session's traffic; MB/s is the reading and decoding rate.
func BenchmarkReaderStream(b *testing.B) {
	var stream bytes.Buffer
	for stream.Len() < 1<<20 {
		stream.Write(benchCallReq)
		stream.WriteByte('\n')
		stream.Write(benchCallResp)
		stream.WriteByte('\n')
	}
	data := stream.Bytes()
	reg := newRegistry(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := session.NewReader(bytes.NewReader(data), reg, session.Limits{})
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
