package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

const (
	idReq  = "00000000000000000000000000000001"
	idReq2 = "00000000000000000000000000000002"
)

// builtMessages are one message of every type as Go code makes them, with
// every field set, then a few with only what is required: the encode golden
// (testdata/write.golden.ndjson) shows what each writes.
func builtMessages() []session.Message {
	ref := session.Ref{ReqID: idReq}
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	return []session.Message{
		&session.HandshakeReq{AgentID: "support-bot", AgentCaps: []string{"tools", "mcp"}, AuthToken: "slk_secret_1"},
		&session.HandshakeResp{Ref: ref, SessionID: "97e7d130d4e44e7193a187b586b6ad7e",
			AcceptedCaps: []session.CapabilityAck{{Capability: "tools", Enabled: true, Metadata: json.RawMessage(`{"tools":3}`)},
				{Capability: "chains", Enabled: false}},
			MaxParallel: 16, OK: true, Limits: session.SessionLimits{MaxLineBytes: 1 << 20, CallsPerSecond: 100}},
		&session.HandshakeResp{Ref: ref, OK: false, Reason: session.ReasonAuthFailed},
		&session.Ping{},
		&session.Pong{Ref: ref, UptimeSeconds: 12.5},
		&session.Pong{Ref: ref}, // uptime 0 is still written: the field is the pong's point
		&session.Shutdown{Timeout: 5},
		&session.Shutdown{ReqID: idReq},
		&session.ErrorMessage{ReqID: idReq, Code: session.CodeToolDenied, Message: `tool "op.ApiCall" is not permitted`,
			Detail: json.RawMessage(`{"tool":"op.ApiCall"}`), Retryable: false, CapabilityName: "tools"},
		&session.ErrorMessage{Code: session.CodeParseError, Message: "not JSON"},
		&session.Event{EventFields: session.EventFields{Ref: ref, Kind: session.KindProgress, Data: json.RawMessage(`{"pct":50}`), Seq: 0}},
		&session.ToolListReq{FilterKind: "op", Query: "filter <data> & more", FilterTags: []string{"operation"}, IncludeDeferred: true},
		&session.ToolListReq{},
		&session.ToolListResp{Ref: ref, Tools: []session.ToolInfo{{Name: "op.FilterData", Description: "Keep items",
			InputParameters: session.ParametersOf(schema), OutputParameters: session.ParametersOf(schema),
			InputSchema: schema, OutputSchema: schema, Streaming: false, Idempotent: true,
			Tags: []string{"operation"}, Version: "1.0"}, {Name: "mcp.github.search"}}},
		&session.ToolListResp{Ref: ref}, // no tools: "tools":[] all the same
		&session.ToolCallReq{SessionID: "97e7d130d4e44e7193a187b586b6ad7e", ToolName: "workflow.execute",
			Arguments: json.RawMessage(`{"workflow":"..."}`), CorrelationID: "c-1", Streaming: true, Timeout: 2.5},
		&session.ToolCallReq{ToolName: "op.Wait"},
		&session.ToolEvent{EventFields: session.EventFields{Ref: ref, Kind: session.KindLog, Data: json.RawMessage(`{"level":"info","message":"line"}`), Seq: 3}},
		&session.ToolCallResp{Ref: ref, Data: session.ToolResult{Success: true, ToolName: "op.FilterData",
			Data: json.RawMessage(`[{"id":1}]`), Summary: "ok", Truncated: true, DurationMS: 2}},
		&session.ToolCallResp{Ref: ref, Data: session.ToolResult{Success: false, ToolName: "workflow.execute",
			Error: "the workflow did not validate", ErrorCode: "invalid_workflow"}},
		&session.MCPRegisterReq{Name: "github", Command: "github-mcp"},
		&session.MCPRegisterReq{Name: "docs", URL: "https://mcp.example.com/mcp"},
		&session.MCPRegisterResp{Ref: ref, OK: true, Server: session.MCPServer{Name: "github", Command: "github-mcp",
			Tools: []string{"mcp.github.search"}}},
		&session.MCPRegisterResp{Ref: ref, OK: false, Reason: "mcp server \"x\" is not in the allowlist"},
		&session.MCPListReq{},
		&session.MCPListResp{Ref: ref, Servers: []session.MCPServer{{Name: "docs", URL: "https://mcp.example.com/mcp"}}},
		&session.MCPListResp{Ref: ref}, // none: "servers":[]
		&session.MCPUnregisterReq{Name: "github"},
		&session.MCPUnregisterResp{Ref: ref, OK: true},
		&session.Generic{Header: session.Header{Type: "chain/event"}, Fields: map[string]json.RawMessage{
			"req_id": json.RawMessage(`"` + idReq + `"`), "z": json.RawMessage(`[1, 2]`), "a": json.RawMessage(`{ "k" : null }`)}},
	}
}

// TestWriteGolden: every built message through a Writer with a fixed clock
// and ids; the golden is the stream as a peer would read it.
func TestWriteGolden(t *testing.T) {
	var out bytes.Buffer
	w := session.NewWriter(&out, fixedStamper(), session.Limits{})
	for _, m := range builtMessages() {
		if err := w.Write(m); err != nil {
			t.Fatalf("%s: %v", m.MessageType(), err)
		}
	}
	// Each line decodes as the type it was written as.
	reg := newRegistry(t)
	rd := session.NewReader(bytes.NewReader(out.Bytes()), reg, session.Limits{})
	for i, want := range builtMessages() {
		m, err := rd.Next()
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if m.Head().Type != want.MessageType() {
			t.Errorf("line %d is a %s, want %s", i+1, m.Head().Type, want.MessageType())
		}
	}
	name := filepath.Join("testdata", "write.golden.ndjson")
	if *update {
		if err := os.WriteFile(name, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("%s differs; run with -update and review the diff.\ngot:\n%s", name, out.Bytes())
	}
}

// TestWriterStampsOnlyWhatIsEmpty: a message's own id, ts and a2e are kept.
func TestWriterStampsOnlyWhatIsEmpty(t *testing.T) {
	var out bytes.Buffer
	w := session.NewWriter(&out, fixedStamper(), session.Limits{})
	if err := w.Write(&session.Ping{Header: session.Header{ID: idReq2, TS: 1.5}}); err != nil {
		t.Fatal(err)
	}
	want := `{"a2e":"1.0","type":"ping","id":"` + idReq2 + `","ts":1.5}` + "\n"
	if out.String() != want {
		t.Errorf("got %s want %s", out.String(), want)
	}
}

func TestWriterRefuses(t *testing.T) {
	cases := []struct {
		name string
		lim  session.Limits
		m    session.Message
		want string
	}{
		{"type of another message", session.Limits{}, &session.Ping{Header: session.Header{Type: "pong"}}, `has type "pong", not "ping"`},
		{"over the line limit", session.Limits{MaxLineBytes: 100},
			&session.ToolCallReq{ToolName: "op.Wait", Arguments: json.RawMessage(`{"s":"` + strings.Repeat("x", 100) + `"}`)},
			"over the 100-byte line limit"},
		{"raw value that is not JSON", session.Limits{}, &session.ToolCallReq{ToolName: "op.Wait", Arguments: json.RawMessage(`{`)}, "encode tool/call/req"},
		{"generic without a type", session.Limits{}, &session.Generic{}, "type"},
		{"generic with a bad type", session.Limits{}, &session.Generic{Header: session.Header{Type: "a b"}}, "type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			w := session.NewWriter(&out, fixedStamper(), c.lim)
			err := w.Write(c.m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one saying %q", err, c.want)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q", out.String())
			}
			// The writer goes on after a refused message.
			if err := w.Write(&session.Ping{}); err != nil {
				t.Errorf("the next write: %v", err)
			}
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

// TestWriterSticky: after the stream failed, every Write returns that error
// and nothing more is tried (the stream may hold half a line).
func TestWriterSticky(t *testing.T) {
	fw := &failWriter{}
	w := session.NewWriter(fw, session.Stamper{}, session.Limits{})
	for range 3 {
		if err := w.Write(&session.Ping{}); err == nil || err.Error() != "disk full" {
			t.Fatalf("err %v", err)
		}
	}
	if fw.n != 1 {
		t.Errorf("%d writes tried, want 1", fw.n)
	}
}

// lineWriter records each Write call: a Writer must write each line whole.
type lineWriter struct {
	mu    sync.Mutex
	calls [][]byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, bytes.Clone(p))
	return len(p), nil
}

func TestWriterConcurrent(t *testing.T) {
	lw := &lineWriter{}
	w := session.NewWriter(lw, session.Stamper{}, session.Limits{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				m := &session.ToolCallReq{ToolName: "op.Wait", Arguments: json.RawMessage(`{"g":` + string(rune('0'+g)) + `,"pad":"` + strings.Repeat("p", i) + `"}`)}
				if err := w.Write(m); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	reg := newRegistry(t)
	ids := map[string]bool{}
	for _, c := range lw.calls {
		if bytes.Count(c, []byte("\n")) != 1 || c[len(c)-1] != '\n' {
			t.Fatalf("a Write call is not one line: %q", c)
		}
		m, err := reg.Decode(c[:len(c)-1], session.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ids[m.Head().ID] = true
	}
	if len(lw.calls) != 400 || len(ids) != 400 {
		t.Errorf("%d lines, %d ids; want 400 each", len(lw.calls), len(ids))
	}
}

// TestMarshalDoesNotStamp: Marshal writes the message as it is.
func TestMarshalDoesNotStamp(t *testing.T) {
	b, err := session.Marshal(&session.Ping{})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a2e":"","type":"","id":"","ts":0}` {
		t.Errorf("got %s", b)
	}
}
