package e2a_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func seedInputs(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if filepath.Ext(file) == ".ndjson" {
			for _, line := range bytes.Split(b, []byte("\n")) {
				f.Add(line)
			}
			continue
		}
		f.Add(b)
	}
	f.Add([]byte(`{"timestamp":-62135596800.0000001}`))
	f.Add([]byte(`{"params":{"a":"\ud83d\ude00\udc00"},"jsonrpc_id":-0.0e-0}`))
}

// checkDecodeError: every failure is an *e2a.Error with a message and an offset
// inside the input.
func checkDecodeError(t *testing.T, data []byte, err error) {
	t.Helper()
	var e *e2a.Error
	if !errors.As(err, &e) || e.Message == "" || e.Offset < 0 || e.Offset > len(data) {
		t.Fatalf("bad error %#v for %q", err, data)
	}
}

// checkIgnored: at most 32 skipped keys are listed, none empty, none long.
func checkIgnored(t *testing.T, ignored []string) {
	t.Helper()
	if len(ignored) > 32 {
		t.Fatalf("%d ignored keys listed", len(ignored))
	}
	for _, p := range ignored {
		if p == "" || len(p) > 2*64+len("provenance.[\"\"]")+16 {
			t.Fatalf("ignored path %q", p)
		}
	}
}

// FuzzDecodeEnvelope: arbitrary bytes never panic; a failure is a clear
// *e2a.Error; a success encodes exactly as encoding/json would, and decodes
// back to the same envelope with the same bytes, ignoring nothing (sluice
// writes only keys it knows); the list of skipped keys stays bounded.
func FuzzDecodeEnvelope(f *testing.F) {
	seedInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lim := range []e2a.Limits{{}, {MaxBytes: 256, MaxDepth: 3}} {
			e, ignored, err := e2a.DecodeEnvelopeIgnoring(data, lim)
			if err != nil {
				checkDecodeError(t, data, err)
				continue
			}
			checkIgnored(t, ignored)
			if b, _ := e2a.AppendEnvelope(nil, e); b != nil {
				if _, again, err := e2a.DecodeEnvelopeIgnoring(b, e2a.Limits{MaxBytes: len(b) + 1}); err == nil && len(again) > 0 {
					t.Fatalf("sluice's own envelope has keys it ignores: %v", again)
				}
			}
			assertSameAsReference(t, e)
			assertEnvelopeRoundTrip(t, e)
			if _, err := e2a.ToACPCall(e); err != nil {
				checkDecodeError(t, data, err)
			}
		}
	})
}

// FuzzDecodeResponse: as FuzzDecodeEnvelope, for frames; a decoded frame's
// projections never panic.
func FuzzDecodeResponse(f *testing.F) {
	seedInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ignored, err := e2a.DecodeResponseIgnoring(data, e2a.Limits{})
		if err != nil {
			checkDecodeError(t, data, err)
			return
		}
		checkIgnored(t, ignored)
		assertResponseSameAsReference(t, r)
		assertResponseRoundTrip(t, r)
		_ = e2a.ResponseToACP(r)
		_ = e2a.ResponseToA2A(r)
		_ = e2a.CheckFrame(r)
	})
}

// FuzzDecodeACPMessage: JSON-RPC messages from ACP peers never panic the
// decoder or the frame conversion.
func FuzzDecodeACPMessage(f *testing.F) {
	seedInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := e2a.DecodeACPMessage(data, e2a.Limits{})
		if err != nil {
			checkDecodeError(t, data, err)
			return
		}
		if fr, err := e2a.FrameFromACP(m); err == nil && fr.Kind == "" {
			t.Fatal("frame without a kind")
		}
	})
}

// FuzzCheck: any recording gives a report, never a panic, and a report is OK
// only without violations.
func FuzzCheck(f *testing.F) {
	seedInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := e2a.Check(bytes.NewReader(data), e2a.CheckOptions{Limits: e2a.Limits{MaxBytes: 4096}, MaxViolations: 50})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK != (len(rep.Violations) == 0 && !rep.Truncated) || len(rep.Violations) > 50 {
			t.Fatalf("inconsistent report %+v", rep)
		}
	})
}
