package e2a_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

type recorder struct {
	mu     sync.Mutex
	frames []*e2a.Response
	fail   error
}

func (r *recorder) WriteFrame(f *e2a.Response) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.frames = append(r.frames, f)
	return nil
}

func newWriter(t *testing.T, req *e2a.Envelope, sink e2a.FrameSink) *e2a.StreamWriter {
	t.Helper()
	n := 0
	clock := time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC)
	w, err := e2a.NewStreamWriter(req, sink, e2a.StreamOptions{
		Now:   func() time.Time { clock = clock.Add(time.Second); return clock },
		NewID: func() string { n++; return fmt.Sprintf("r%d", n) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func request() *e2a.Envelope {
	e := e2a.NewEnvelope()
	e.RequestID, e.SessionID, e.Channel, e.Method, e.IsStream, e.JSONRPCID = "req_1", "s", "web", "agent.invoke", true, e2a.IntID(4)
	e.AgentRef = map[string]any{"id": "a"}
	return e
}

// The spec's §12.8 stream, written by the writer, passes the checker and says
// what the spec's example says.
func TestStreamWriterSpecExample(t *testing.T) {
	var buf bytes.Buffer
	w := newWriter(t, request(), e2a.NewNDJSONSink(&buf))
	for _, err := range []error{w.Chunk("text", "Hello"), w.Chunk("text", " world"), w.Complete(map[string]any{"content": "Hello world"})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	out := buf.String()
	rep, err := e2a.Check(strings.NewReader(out), e2a.CheckOptions{})
	if err != nil || !rep.OK || rep.Frames != 3 {
		t.Fatalf("writer output fails the check: %+v %v", rep, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	want := []string{
		`{"protocol_version":"1.0","response_id":"r1","request_id":"req_1","sequence":0,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-03-29T12:00:01+00:00",`,
		`{"protocol_version":"1.0","response_id":"r2","request_id":"req_1","sequence":1,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-03-29T12:00:02+00:00",`,
		`{"protocol_version":"1.0","response_id":"r3","request_id":"req_1","sequence":2,"is_final":true,"status":"succeeded","response_kind":"e2a.complete","timestamp":"2026-03-29T12:00:03+00:00",`,
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) {
			t.Errorf("line %d:\n got %s\nwant %s...", i, l, want[i])
		}
	}
	for _, echo := range []string{`"jsonrpc_id":4`, `"session_id":"s"`, `"channel":"web"`, `"method":"agent.invoke"`, `"is_stream":true`, `"agent_ref":{"id":"a"}`, `"identity_origin":"agent"`} {
		if !strings.Contains(lines[2], echo) {
			t.Errorf("final frame lacks %s: %s", echo, lines[2])
		}
	}
	if !strings.Contains(lines[2], `"body":{"result":{"content":"Hello world"}}`) {
		t.Errorf("body: %s", lines[2])
	}
}

func TestStreamWriterRefusesAfterFinal(t *testing.T) {
	var rec recorder
	w := newWriter(t, request(), &rec)
	if err := w.Fail("invalid", "bad workflow", map[string]any{"type": "ValidationError"}); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{w.Chunk("text", "late"), w.Complete(1), w.Fail("x", "y", nil)} {
		if !errors.Is(err, e2a.ErrStreamFinished) {
			t.Fatalf("write after final: %v", err)
		}
	}
	if err := w.Close(); err != nil || len(rec.frames) != 1 || !w.Finished() || w.Sequence() != 1 {
		t.Fatalf("close after final must do nothing: %v, %d frames", err, len(rec.frames))
	}
	f := rec.frames[0]
	if f.Kind != e2a.KindError || f.Status != e2a.StatusFailed || !f.IsFinal || f.Body["code"] != "invalid" || f.Body["message"] != "bad workflow" {
		t.Fatalf("error frame %+v", f)
	}
}

func TestStreamWriterCloseWritesTheMissingFinal(t *testing.T) {
	var rec recorder
	w := newWriter(t, request(), &rec)
	if err := w.Chunk("reasoning", "thinking"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(rec.frames) != 2 || !rec.frames[1].IsFinal || rec.frames[1].Body["code"] != "internal" || rec.frames[1].Sequence != 1 {
		t.Fatalf("close must end the stream with an internal error: %+v", rec.frames)
	}
}

func TestStreamWriterRefusesBadFrames(t *testing.T) {
	cases := map[string]*e2a.Response{
		"unknown kind":            {Kind: "e2a.done", Status: e2a.StatusInProgress},
		"final in progress":       {Kind: e2a.KindComplete, IsFinal: true, Body: map[string]any{"result": 1}},
		"chunk without delta":     e2a.ChunkFrame("text", nil),
		"chunk with bad kind":     e2a.ChunkFrame("speech", "x"),
		"complete without result": {Kind: e2a.KindComplete, IsFinal: true, Status: e2a.StatusSucceeded},
		"other request":           {RequestID: "req_2", Kind: e2a.KindChunk, Body: map[string]any{"delta_kind": "text", "delta": "x"}},
	}
	for name, f := range cases {
		var rec recorder
		w := newWriter(t, request(), &rec)
		if err := w.Write(f); err == nil || len(rec.frames) != 0 || w.Sequence() != 0 {
			t.Errorf("%s: accepted (%v)", name, err)
		}
		if err := w.Chunk("text", "ok"); err != nil || rec.frames[0].Sequence != 0 {
			t.Errorf("%s: a refused frame must not use a sequence number: %v", name, err)
		}
	}
}

func TestStreamWriterSinkFailureIsSticky(t *testing.T) {
	rec := recorder{fail: errors.New("connection reset")}
	w := newWriter(t, request(), &rec)
	err := w.Chunk("text", "x")
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("sink error not returned: %v", err)
	}
	rec.fail = nil
	if err2 := w.Chunk("text", "y"); err2 == nil || w.Close() == nil || len(rec.frames) != 0 {
		t.Fatal("after a sink failure nothing more is written")
	}
}

func TestStreamWriterNeedsRequestID(t *testing.T) {
	if _, err := e2a.NewStreamWriter(e2a.NewEnvelope(), &recorder{}, e2a.StreamOptions{}); !errors.Is(err, e2a.ErrNoRequestID) {
		t.Fatalf("got %v", err)
	}
}

func TestStreamWriterDefaultsAndFrameFields(t *testing.T) {
	var rec recorder
	w, err := e2a.NewStreamWriter(request(), &rec, e2a.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := &e2a.Response{Kind: e2a.KindA2ATask, IsFinal: true, Status: e2a.StatusSucceeded, TaskID: "own", Body: map[string]any{}, JSONRPCID: e2a.StringID("own")}
	if err := w.Write(f); err != nil {
		t.Fatal(err)
	}
	got := rec.frames[0]
	if len(got.ResponseID) != 36 || got.ResponseID[14] != '4' || got.Timestamp.IsZero() || got.TaskID != "own" || got.JSONRPCID.String() != "own" ||
		got.SessionID != "s" || f.ResponseID != "" {
		t.Fatalf("defaults: %+v (the caller's frame must stay untouched: %+v)", got, f)
	}
	if a, b := e2a.NewUUID(), e2a.NewUUID(); a == b {
		t.Fatal("uuids repeat")
	}
}

// Concurrent writers keep sequence order on the sink; run with -race.
func TestStreamWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	sink := e2a.NewNDJSONSink(&buf)
	var wg sync.WaitGroup
	for r := 0; r < 4; r++ {
		req := request()
		req.RequestID = fmt.Sprintf("req_%d", r)
		w, err := e2a.NewStreamWriter(req, sink, e2a.StreamOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var inner sync.WaitGroup
		for g := 0; g < 4; g++ {
			inner.Add(1)
			go func() {
				defer inner.Done()
				for i := 0; i < 25; i++ {
					if err := w.Chunk("text", "x"); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			inner.Wait()
			if err := w.Complete(nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	rep, err := e2a.Check(&buf, e2a.CheckOptions{})
	if err != nil || !rep.OK || rep.Frames != 4*101 || rep.Requests != 4 {
		t.Fatalf("%+v %v", rep, err)
	}
}
