package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/session"
)

func TestErrorReply(t *testing.T) {
	e := &session.Error{Code: session.CodeSchemaViolation, Message: "unknown field", Path: "tools[0].nme",
		Offset: 12, Line: 3, ID: idReq, Type: "tool/list/resp", Suggestions: []string{`did you mean "name"?`}}
	if got, want := e.Error(), `session: line 3: tool/list/resp: tools[0].nme: unknown field; did you mean "name"?`; got != want {
		t.Errorf("Error() = %s\nwant      %s", got, want)
	}
	r := e.Reply()
	if r.ReqID != idReq || r.Code != session.CodeSchemaViolation || r.Message != "tool/list/resp: tools[0].nme: unknown field" || r.Retryable {
		t.Errorf("Reply() = %#v", r)
	}
	var detail map[string]any
	if err := json.Unmarshal(r.Detail, &detail); err != nil {
		t.Fatal(err)
	}
	if detail["path"] != "tools[0].nme" || detail["line"] != 3.0 || detail["offset"] != 12.0 || len(detail["suggestions"].([]any)) != 1 {
		t.Errorf("detail = %v", detail)
	}
	// Nothing known: no detail at all, no req_id.
	r = (&session.Error{Code: session.CodeParseError, Message: "not JSON"}).Reply()
	if r.Detail != nil || r.ReqID != "" || r.Message != "not JSON" {
		t.Errorf("bare Reply() = %#v", r)
	}
	// The reply is an error the client can return.
	var asErr error = r
	if asErr.Error() != "session: parse_error: not JSON" {
		t.Errorf("ErrorMessage.Error() = %s", asErr.Error())
	}
	if (&session.ErrorMessage{Code: session.CodeTimeout}).Error() != "session: timeout" {
		t.Error("ErrorMessage.Error() without a message")
	}
}

func TestCodes(t *testing.T) {
	// The closed list of RESOLUTIONS, in its order.
	want := []session.ErrorCode{"parse_error", "invalid_message", "schema_violation", "unknown_type",
		"version_mismatch", "unauthorized", "rate_limited", "timeout", "runtime_error", "unknown_tool",
		"tool_denied", "tool_error"}
	got := session.Codes()
	if !slices.Equal(got, want) {
		t.Fatalf("Codes() = %v", got)
	}
	got[0] = "changed" // a copy: the list cannot be changed from outside
	if session.Codes()[0] != "parse_error" {
		t.Error("Codes() returns the package's own slice")
	}
	for _, c := range want {
		if !c.Known() {
			t.Errorf("%s is not Known", c)
		}
	}
	if session.ErrorCode("quota_exceeded").Known() {
		t.Error("an unlisted code is Known")
	}
}

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := session.NewID()
		if !session.ValidID(id) || id != strings.ToLower(id) || id[12] != '4' || !strings.ContainsRune("89ab", rune(id[16])) {
			t.Fatalf("NewID() = %s: not a lowercase UUIDv4 hex", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %s", id)
		}
		seen[id] = true
	}
	for id, want := range map[string]bool{
		idReq: true, "ABCDEF0123456789abcdef0123456789": true,
		"": false, "0123": false, idReq + "0": false, "0000000000000000000000000000000g": false,
		"00000000-0000-0000-0000-000000000001": false, "0000000000000000000000000000000\u00e9": false,
	} {
		if session.ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v", id, !want)
		}
	}
}

func TestTimestamps(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 30, 0, 123456789, time.UTC)
	ts := session.TS(at)
	if ts != 1795426200.123456 {
		t.Errorf("TS = %v, want 1795426200.123456 (to the microsecond)", ts)
	}
	if got := session.TimeOf(ts); !got.Equal(at.Truncate(time.Microsecond)) || got.Location() != time.UTC {
		t.Errorf("TimeOf(TS(t)) = %v, want %v", got, at.Truncate(time.Microsecond))
	}
	if got := session.TimeOf(1763900000.25); !got.Equal(time.Unix(1763900000, 250e6)) {
		t.Errorf("TimeOf(1763900000.25) = %v", got)
	}
	h := session.Header{TS: 1.5}
	if !h.Time().Equal(time.Unix(1, 5e8)) {
		t.Errorf("Header.Time() = %v", h.Time())
	}
	if !(&session.Header{}).Time().IsZero() {
		t.Error("a zero ts is not the zero time")
	}
}

func TestStamper(t *testing.T) {
	st := fixedStamper()
	m := st.Stamp(&session.ToolCallReq{ToolName: "op.Wait"})
	h := m.Head()
	if h.A2E != "1.0" || h.Type != "tool/call/req" || h.ID != "ffffffffffffffffffffffff00000001" || h.TS != 1795426200.123456 {
		t.Errorf("stamped %#v", h)
	}
	// The zero Stamper uses the clock and NewID.
	before := time.Now().Add(-time.Second)
	h = session.Stamper{}.Stamp(&session.Ping{}).Head()
	if !session.ValidID(h.ID) || h.Time().Before(before) {
		t.Errorf("zero Stamper: %#v", h)
	}
}

// TestHandshakeLogValue: the token never reaches a log.
func TestHandshakeLogValue(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	m := &session.HandshakeReq{Header: session.Header{Type: session.TypeHandshakeReq, ID: idReq},
		AgentID: "bot", AgentCaps: []string{"tool"}, AuthToken: "slk_secret_token"}
	log.Info("handshake", "msg", m)
	if strings.Contains(buf.String(), "slk_secret") || !strings.Contains(buf.String(), `"auth_token_set":true`) ||
		!strings.Contains(buf.String(), `"agent_id":"bot"`) {
		t.Errorf("log line: %s", buf.String())
	}
}

func TestHandshakeRespCap(t *testing.T) {
	r := &session.HandshakeResp{AcceptedCaps: []session.CapabilityAck{{Capability: "tool", Enabled: true}, {Capability: "mcp"}}}
	if c, ok := r.Cap("tool"); !ok || !c.Enabled {
		t.Errorf("Cap(tool) = %v, %v", c, ok)
	}
	if c, ok := r.Cap("mcp"); !ok || c.Enabled {
		t.Errorf("Cap(mcp) = %v, %v", c, ok)
	}
	if _, ok := r.Cap("chain"); ok {
		t.Error("Cap of a namespace not answered is ok")
	}
}

func TestGenericRequestID(t *testing.T) {
	for raw, want := range map[string]string{`"` + idReq + `"`: idReq, `42`: "", `null`: "", `"x"`: "x"} {
		g := &session.Generic{Fields: map[string]json.RawMessage{"req_id": json.RawMessage(raw)}}
		if got := g.RequestID(); got != want {
			t.Errorf("req_id %s: RequestID() = %q, want %q", raw, got, want)
		}
	}
	if (&session.Generic{}).RequestID() != "" || (*session.Generic)(nil).MessageType() != "" {
		t.Error("an empty Generic")
	}
	// Base keys in Fields are not written twice; an empty value is null.
	g := &session.Generic{Header: session.Header{A2E: "1.0", Type: "x/y", ID: idReq, TS: 1},
		Fields: map[string]json.RawMessage{"type": json.RawMessage(`"other"`), "e": nil}}
	b, err := session.Marshal(g)
	if err != nil || string(b) != `{"a2e":"1.0","type":"x/y","id":"`+idReq+`","ts":1,"e":null}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	g.Fields["bad"] = json.RawMessage(`{`)
	if _, err := session.Marshal(g); err == nil {
		t.Error("a field that is not JSON was written")
	}
}

func TestNames(t *testing.T) {
	for name, want := range map[string]bool{
		"op.FilterData": true, "cap.billing/refund": true, "mcp.github.search_issues": true, "agent.résumé": true,
		"": false, "op Filter": false, "op.\tx": false, "op.\x00": false, "op.\u200b": false, "op.\xff": false,
		strings.Repeat("a", session.MaxToolNameBytes): true, strings.Repeat("a", session.MaxToolNameBytes+1): false,
	} {
		if session.ValidToolName(name) != want {
			t.Errorf("ValidToolName(%q) = %v", name, !want)
		}
	}
	for name, want := range map[string]bool{
		"github": true, "docs_v2": true, "my-server": true, "": false, "git.hub": false, "a b": false, "é": false,
		strings.Repeat("a", session.MaxMCPServerNameBytes): true, strings.Repeat("a", session.MaxMCPServerNameBytes+1): false,
	} {
		if session.ValidMCPServerName(name) != want {
			t.Errorf("ValidMCPServerName(%q) = %v", name, !want)
		}
	}
}

// TestErrorsAreErrors: a decode error is usable with errors.As through
// wrapping, as the gateway uses it.
func TestErrorsAreErrors(t *testing.T) {
	_, err := newRegistry(t).Decode([]byte(`nope`), session.Limits{})
	wrapped := errors.Join(errors.New("reading"), err)
	var e *session.Error
	if !errors.As(wrapped, &e) || e.Code != session.CodeParseError {
		t.Fatalf("errors.As: %v", wrapped)
	}
}
