package client

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// readFrames never panics, hands over nothing after a final frame, and its
// First is the body's first non-empty line.
func FuzzReadFrames(f *testing.F) {
	f.Add([]byte(`{"protocol_version":"1.0","response_id":"r1","request_id":"q","sequence":0,"is_final":true,"status":"succeeded","response_kind":"e2a.complete","timestamp":"2026-03-29T12:00:00+00:00","provenance":{"source_protocol":"e2a"},"body":{"result":{}}}` + "\n{}\n"))
	f.Add([]byte("\n\n{\"error\":\"x\"}\n"))
	f.Add([]byte("\x00\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		finals := 0
		first, final, err := readFrames(strings.NewReader(string(b)), func(r *e2a.Response) error {
			if finals > 0 {
				t.Fatal("a frame after the final one")
			}
			if r.IsFinal {
				finals++
			}
			return nil
		})
		if final != (finals == 1) {
			t.Fatalf("final %v after %d final frames (err %v)", final, finals, err)
		}
		if len(first) > 0 && !strings.Contains(string(b), string(first)) {
			t.Fatalf("first line %q is not in the body", first)
		}
	})
}
