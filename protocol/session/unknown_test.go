package session_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

// Like the SDK's pydantic models, a known message skips the fields its type
// does not define, at any depth, and DecodeNoting names each one; before the
// SDK conformance work each of these lines was a schema_violation.
func TestUnknownFieldsAreSkippedAndReported(t *testing.T) {
	reg := newRegistry(t)
	for _, c := range []struct {
		line    string
		ignored []string
	}{
		// The SDK's ToolListRequest: filter_kind is defined now, toolkit is not.
		{`{"type":"tool/list/req","id":"` + idReq + `","version":"1.0","ts":1.5,"filter_kind":"op","filter_tags":[],"query":"","include_deferred":false,"toolkit":"fs"}`,
			[]string{"toolkit"}},
		{`{"a2e":"1.0","type":"tool/list/req","id":"` + idReq + `","ts":1,"filter_tag":["x"]}`, []string{"filter_tag"}},
		// The SDK's ToolResult fields sluice does not define, inside data.
		{`{"a2e":"1.0","type":"tool/call/resp","id":"` + idReq + `","ts":1,"req_id":"` + idReq2 + `","created_at":1.5,"data":{"success":true,"tool_name":"t","duration_ms":1,"exit_code":null,"events":[]}}`,
			[]string{"created_at", "data.exit_code", "data.events"}},
		{`{"a2e":"1.0","type":"tool/list/resp","id":"` + idReq + `","ts":1,"req_id":"` + idReq2 + `","tools":[{"name":"a","defer_loading":false,"toolkit":null},{"name":"b","input_parameters":[{"name":"q","type":"string","description":"","x":1}]}]}`,
			[]string{"tools[0].defer_loading", "tools[0].toolkit", "tools[1].input_parameters[0].x"}},
		{`{"a2e":"1.0","type":"ping","id":"` + idReq + `","ts":1,"req_id":"` + idReq2 + `"}`, []string{"req_id"}},
	} {
		var got, types []string
		m, err := reg.DecodeNoting([]byte(c.line), session.Limits{}, func(f session.IgnoredField) {
			got, types = append(got, f.Path), append(types, f.Type)
		})
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if !slices.Equal(got, c.ignored) {
			t.Errorf("%s: ignored %q, want %q", m.MessageType(), got, c.ignored)
		}
		for _, typ := range types {
			if typ != m.MessageType() {
				t.Errorf("IgnoredField.Type = %q, want %q", typ, m.MessageType())
			}
		}
		// Decode without a report takes the same line.
		if _, err := reg.Decode([]byte(c.line), session.Limits{}); err != nil {
			t.Errorf("Decode: %v", err)
		}
	}
	m, _ := reg.Decode([]byte(`{"version":"1.0","type":"tool/list/req","id":"`+idReq+`","ts":1,"filter_kind":"mcp"}`), session.Limits{})
	if req, ok := m.(*session.ToolListReq); !ok || req.FilterKind != "mcp" {
		t.Errorf("filter_kind: %#v", m)
	}
	var sugg []string
	_, _ = reg.DecodeNoting([]byte(`{"a2e":"1.0","type":"tool/list/req","id":"`+idReq+`","ts":1,"filter_tag":["x"]}`), session.Limits{},
		func(f session.IgnoredField) { sugg = f.Suggestions })
	if !slices.Equal(sugg, []string{`did you mean "filter_tags"?`}) {
		t.Errorf("suggestions %q", sugg)
	}
}

// Skipping unknown fields loosens nothing else: a defined field of the wrong
// type, a missing required field and a bad value stay schema_violation.
func TestKnownFieldsStayStrict(t *testing.T) {
	reg := newRegistry(t)
	for _, c := range []struct{ body, path string }{
		{`"type":"tool/list/req","filter_kind":1`, "filter_kind"},
		{`"type":"tool/list/req","filter_tags":"op","extra":1`, "filter_tags"},
		{`"type":"tool/list/req","include_deferred":"yes"`, "include_deferred"},
		{`"type":"tool/call/req","arguments":{}`, "tool_name"},
		{`"type":"tool/call/req","tool_name":"a","arguments":"x"`, "arguments"},
		{`"type":"tool/call/req","tool_name":"a","timeout":-1`, "timeout"},
		{`"type":"handshake/req","agent_caps":"tools"`, "agent_caps"},
		{`"type":"tool/call/resp","req_id":"` + idReq2 + `","data":{"tool_name":"t"}`, "data.success"},
		{`"type":"tool/call/resp","req_id":"` + idReq2 + `","data":{"success":true,"duration_ms":1.5}`, "data.duration_ms"},
		{`"type":"tool/event","req_id":"` + idReq2 + `","kind":"log","seq":0,"data":"text"`, "data"},
		{`"type":"error","code":"x","detail":[1]`, "detail"},
	} {
		line := `{"a2e":"1.0","id":"` + idReq + `","ts":1,` + c.body + `}`
		_, err := reg.Decode([]byte(line), session.Limits{})
		var e *session.Error
		if !errors.As(err, &e) || e.Code != session.CodeSchemaViolation || e.Path != c.path {
			t.Errorf("%s: %v, want schema_violation at %s", c.body, err, c.path)
		}
	}
}

func TestParametersOf(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["workflow","opts"],"properties":{
		"workflow":{"type":"string","description":"the JSONL document"},
		"mode":{"type":["null","string"],"enum":["a","b"]},
		"n":{"type":"integer","enum":[1,2]},
		"free":{},
		"opts":{"type":"object","required":["deep"],"properties":{"deep":{"type":"boolean"}}}}}`)
	got, _ := json.Marshal(session.ParametersOf(schema))
	want := `[{"name":"free","type":"any","description":"","required":false},` +
		`{"name":"mode","type":"string","description":"","required":false,"enum":["a","b"]},` +
		`{"name":"n","type":"integer","description":"","required":false},` +
		`{"name":"opts","type":"object","description":"","required":true,"properties":{"deep":{"name":"deep","type":"boolean","description":"","required":true}}},` +
		`{"name":"workflow","type":"string","description":"the JSONL document","required":true}]`
	if string(got) != want {
		t.Errorf("ParametersOf:\n got %s\nwant %s", got, want)
	}
	for _, s := range []string{``, `null`, `[1]`, `{"type":"array"}`, `{"properties":7}`} {
		if p := session.ParametersOf(json.RawMessage(s)); p == nil || len(p) != 0 {
			t.Errorf("ParametersOf(%q) = %#v, want an empty list", s, p)
		}
	}
}

func TestCapabilities(t *testing.T) {
	want := []string{"skill", "tools", "toolkits", "env", "proc", "memory", "learning", "chains", "multi_agent", "planning", "mcp", "test"}
	if got := session.Capabilities(); !slices.Equal(got, want) {
		t.Errorf("Capabilities() = %q", got)
	}
	for ns, c := range map[string]string{"tool": "tools", "mcp": "mcp", "chain": "chains", "learn": "learning"} {
		if got, ok := session.CapabilityOf(ns); !ok || got != c {
			t.Errorf("CapabilityOf(%q) = %q, %v", ns, got, ok)
		}
	}
	if session.KnownCapability("streaming") || session.KnownCapability("tool") || !session.KnownCapability("tools") {
		t.Error("KnownCapability")
	}
}
