package e2a_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// fixedNow stands in for the clock in every golden file.
var fixedNow = time.Date(2026, 11, 23, 9, 30, 0, 123456000, time.UTC)

// goldenCases maps a folder of testdata/ to what its inputs go through. Each
// input NAME.json (or NAME.ndjson) has its expected output in NAME.golden.json.
var goldenCases = map[string]func(t *testing.T, in []byte) (any, error){
	// Decode (with every compatibility path) then encode; the keys the
	// decoder skipped, if any, beside the envelope.
	"envelope": decodeEnvelopeGolden,
	// Envelopes as the reference (jiuwenswarm/common/e2a) writes them: its
	// to_dict output, and what its from_dict reads. Same as "envelope".
	"reference": decodeEnvelopeGolden,
	// NDJSON frames: each line decoded and encoded, then the stream check.
	"response": func(t *testing.T, in []byte) (any, error) {
		var frames []any
		for _, line := range bytes.Split(bytes.TrimSpace(in), []byte("\n")) {
			r, ignored, err := e2a.DecodeResponseIgnoring(line, e2a.Limits{})
			if err != nil {
				frames = append(frames, map[string]any{"error": err})
				continue
			}
			assertResponseRoundTrip(t, r)
			if len(ignored) > 0 {
				frames = append(frames, map[string]any{"frame": r, "ignored": ignored})
				continue
			}
			frames = append(frames, r)
		}
		rep, err := e2a.Check(bytes.NewReader(in), e2a.CheckOptions{})
		return map[string]any{"frames": frames, "check": rep}, err
	},
	// Envelope -> ACP JSON-RPC call (§8 envelope_to_acp_jsonrpc_call).
	"to_acp": func(t *testing.T, in []byte) (any, error) {
		e, err := e2a.DecodeEnvelope(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		return e2a.ToACPCall(e)
	},
	// ACP JSON-RPC request -> envelope (§8 envelope_from_acp_jsonrpc).
	"from_acp": func(t *testing.T, in []byte) (any, error) {
		m, err := e2a.DecodeACPMessage(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		e := e2a.EnvelopeFromACP(m.Method, m.Params, e2a.ACPOptions{JSONRPCID: m.ID, Now: fixedNow})
		assertEnvelopeRoundTrip(t, e)
		return e, nil
	},
	// A2A SendMessage params -> envelope (§8 envelope_from_a2a_send_message).
	"from_a2a": func(t *testing.T, in []byte) (any, error) {
		var req map[string]any
		if err := json.Unmarshal(in, &req); err != nil {
			t.Fatal(err)
		}
		e, err := e2a.EnvelopeFromA2A(req, e2a.A2AOptions{Now: fixedNow})
		if err != nil {
			return nil, err
		}
		assertEnvelopeRoundTrip(t, e)
		return e, nil
	},
	// Any request sluice takes -> envelope (sluice e2a normalize).
	"normalize": func(t *testing.T, in []byte) (any, error) {
		e, err := e2a.NormalizeRequest(in, e2a.Limits{}, e2a.NormalizeOptions{Now: fixedNow})
		if err != nil {
			return nil, err
		}
		assertEnvelopeRoundTrip(t, e)
		return e, nil
	},
	// Frame -> A2A SendMessage result, a Task or a Message (null when none).
	"result_to_a2a": func(t *testing.T, in []byte) (any, error) {
		r, err := e2a.DecodeResponse(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		return e2a.ResultToA2A(r), nil
	},
	// acp.session_update frame -> ACP session/update notification (null for other kinds).
	"session_update_to_acp": func(t *testing.T, in []byte) (any, error) {
		r, err := e2a.DecodeResponse(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		return e2a.SessionUpdateNotification(r), nil
	},
	// Frame -> ACP JSON-RPC response (null when not applicable).
	"response_to_acp": func(t *testing.T, in []byte) (any, error) {
		r, err := e2a.DecodeResponse(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		return e2a.ResponseToACP(r), nil
	},
	// Frame -> A2A StreamResponse-shaped JSON (null when not applicable).
	"response_to_a2a": func(t *testing.T, in []byte) (any, error) {
		r, err := e2a.DecodeResponse(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		return e2a.ResponseToA2A(r), nil
	},
	// A JSON-RPC message an ACP agent sent -> the frame it becomes.
	"acp_to_frame": func(t *testing.T, in []byte) (any, error) {
		m, err := e2a.DecodeACPMessage(in, e2a.Limits{})
		if err != nil {
			return nil, err
		}
		return writeOne(t, func() (*e2a.Response, error) { return e2a.FrameFromACP(m) })
	},
	// A2A JSON an agent returned -> the frame it becomes. The name's second
	// part says what the input is: NAME.task, .message, .result or .stream.
	"a2a_to_frame": func(t *testing.T, in []byte) (any, error) {
		var v map[string]any
		if err := json.Unmarshal(in, &v); err != nil {
			t.Fatal(err)
		}
		conv := a2aFrameConverter(t.Name())
		return writeOne(t, func() (*e2a.Response, error) { return conv(v) })
	},
	// A recorded stream -> the check report.
	"check": func(t *testing.T, in []byte) (any, error) {
		return e2a.Check(bytes.NewReader(in), e2a.CheckOptions{})
	},
}

func decodeEnvelopeGolden(t *testing.T, in []byte) (any, error) {
	e, ignored, err := e2a.DecodeEnvelopeIgnoring(in, e2a.Limits{})
	if err != nil {
		return nil, err
	}
	assertEnvelopeRoundTrip(t, e)
	if len(ignored) > 0 {
		return map[string]any{"envelope": e, "ignored": ignored}, nil
	}
	return e, nil
}

// writeOne sends the frame a converter makes through a StreamWriter with a
// fixed clock and ids, so the golden file shows the whole frame as it goes out.
func writeOne(t *testing.T, conv func() (*e2a.Response, error)) (any, error) {
	t.Helper()
	f, err := conv()
	if err != nil {
		return nil, err
	}
	req := e2a.NewEnvelope()
	req.RequestID, req.JSONRPCID, req.SessionID = "req_g", e2a.IntID(7), "sess_g"
	var got *e2a.Response
	w, err := e2a.NewStreamWriter(req, e2a.SinkFunc(func(r *e2a.Response) error { got = r; return nil }),
		e2a.StreamOptions{Now: func() time.Time { return fixedNow }, NewID: func() string { return "resp_g" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(f); err != nil {
		return nil, err
	}
	return got, nil
}

func TestGolden(t *testing.T) {
	for dir, run := range goldenCases {
		inputs, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		n := 0
		for _, in := range inputs {
			if strings.HasSuffix(in, ".golden.json") {
				continue
			}
			n++
			t.Run(dir+"/"+filepath.Base(in), func(t *testing.T) {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				out, err := run(t, data)
				if err != nil {
					var e *e2a.Error
					if !asError(err, &e) {
						t.Fatalf("error %v is not an *e2a.Error", err)
					}
					out = map[string]any{"error": e}
				}
				compareGolden(t, goldenName(in), out)
			})
		}
		if n == 0 {
			t.Errorf("testdata/%s has no inputs", dir)
		}
	}
}

func goldenName(in string) string {
	return strings.TrimSuffix(strings.TrimSuffix(in, ".json"), ".ndjson") + ".golden.json"
}

func TestGoldenFilesHaveInputs(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "*", "*.golden.json"))
	for _, out := range outs {
		base := strings.TrimSuffix(out, ".golden.json")
		_, e1 := os.Stat(base + ".json")
		_, e2 := os.Stat(base + ".ndjson")
		if e1 != nil && e2 != nil {
			t.Errorf("%s has no input", out)
		}
	}
}

func compareGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	if *update {
		if err := os.WriteFile(name, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test ./protocol/e2a -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run with -update and review the diff.\ngot:\n%s", name, got)
	}
}
